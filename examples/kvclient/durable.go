package kvclient

// Durable checks that acknowledged writes survive: every client writes 1,
// 2, ... for runFor to its own key and remembers the last value acknowledged and the
// last one sent. After the last write it lets the faults end
// (sim.QuietFor), then reads every key through the leader: each must hold
// a value from the last acknowledged to the last sent, or an acknowledged
// write was lost.

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

// settle is how long the faults stop before the read-back: long enough for
// crashed nodes to restart and a leader to be elected.
const settle = 15 * time.Second

func Durable(nodes []string, clients int, runFor time.Duration) {
	sim.Eventually(10*time.Second, func() bool { return AgreedLeader(nodes) != "" }, "a first leader is elected")
	sim.SetupComplete()
	end := time.Now().Add(runFor)
	acked := make([]int, clients+1)
	sent := make([]int, clients+1)
	var wg sync.WaitGroup
	for id := 1; id <= clients; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newKVClient(nodes, id)
			for v := 1; time.Now().Before(end); v++ {
				sent[id] = v
				if c.put(durableKey(id), strconv.Itoa(v)) == applied {
					acked[id] = v
				}
				time.Sleep(thinkTime())
			}
		}()
	}
	wg.Wait()
	sim.QuietFor(settle)
	c := newKVClient(nodes, 0)
	for id := 1; id <= clients; id++ {
		got := readBack(c, durableKey(id))
		if got < acked[id] || got > sent[id] {
			msg := fmt.Sprintf("acknowledged write lost: %s holds %d, %d was acknowledged", durableKey(id), got, acked[id])
			fmt.Fprintf(os.Stderr, "client: %s (%d sent)\n", msg, sent[id])
			sim.Fail(msg)
			os.Exit(1)
		}
		fmt.Printf("%s: %d (acknowledged %d, sent %d)\n", durableKey(id), got, acked[id], sent[id])
	}
	fmt.Println("done")
}

func durableKey(id int) string { return "c" + strconv.Itoa(id) }

// readBack is key's value through the log (0 if never set), retried
// until a leader answers.
func readBack(c *kvClient, key string) int {
	var got int
	sim.Eventually(settle, func() bool {
		out, value := c.get(key)
		switch out {
		case missing:
			got = 0
			return true
		case applied:
			n, err := strconv.Atoi(value)
			got = n
			return err == nil
		}
		return false
	}, "a leader answers reads after the faults end")
	return got
}
