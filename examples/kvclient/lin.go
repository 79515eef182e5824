package kvclient

// Lin runs concurrent clients that, for runFor, put and get a few keys and
// record every operation with how it completed (sim.Put, sim.Get). It
// checks nothing itself: the simulator checks the history against
// "linearizable": "kv". Reads go to a random node, as behind a load
// balancer, so a node that wrongly believes it leads gets asked. A put answered
// 421 certainly did not take effect (Failed); one that timed out or got a
// 503 may have, so it stays indeterminate.
//
// When the clients are done the faults stop (sim.QuietFor) and every key is
// read once more until a node answers: an acknowledged write that a crash
// lost then shows in the history as a read that no order explains.

import (
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

func Lin(nodes []string, clients, keys int, runFor time.Duration) {
	sim.Eventually(10*time.Second, func() bool { return AgreedLeader(nodes) != "" }, "a first leader is elected")
	sim.SetupComplete()
	end := time.Now().Add(runFor)
	var wg sync.WaitGroup
	for id := 1; id <= clients; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			linClient(newKVClient(nodes, id), id, keys, end)
		}()
	}
	wg.Wait()
	sim.QuietFor(settle)
	final := clients + 1
	c := newKVClient(nodes, 0)
	for k := 0; k < keys; k++ {
		key := "k" + strconv.Itoa(k)
		sim.Eventually(settle, func() bool {
			op := sim.Get(final, key)
			switch out, value := c.get(key); out {
			case applied:
				op.Returned(value)
				fmt.Printf("%s = %s\n", key, value)
				return true
			case missing:
				op.Missing()
				fmt.Printf("%s missing\n", key)
				return true
			case rejected:
				op.Failed()
			}
			return false
		}, "a node answers reads after the faults end")
	}
	fmt.Println("done")
}

func linClient(c *kvClient, id, keys int, end time.Time) {
	for n := 0; time.Now().Before(end); n++ {
		key := "k" + strconv.Itoa(rand.Intn(keys))
		if rand.Intn(2) == 0 {
			value := fmt.Sprintf("%d.%d", id, n)
			op := sim.Put(id, key, value)
			switch c.put(key, value) {
			case applied:
				op.Ok()
			case rejected:
				op.Failed()
			}
		} else {
			c.askAnyNode()
			op := sim.Get(id, key)
			switch out, value := c.get(key); out {
			case applied:
				op.Returned(value)
			case missing:
				op.Missing()
			case rejected:
				op.Failed()
			}
		}
		time.Sleep(thinkTime())
	}
}
