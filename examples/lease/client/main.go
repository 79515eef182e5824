// Command client is the lease example's workload. One goroutine writes
// versions 1, 2, 3, ... through whichever replica accepts them; every 25ms
// another read goes to the replicas in turn, each on its own connection. A
// read that starts after version N was acknowledged and answers a version
// below N is a stale read: the run fails with
// `stale read: r1 answered version 12 after version 14 was acknowledged`.
// With -snapshot-every it also asks every replica for a SNAPSHOT (a long
// checksum on the leader) that often; only the reads are checked.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"seedfall.dev/examples/lease/internal/wire"
	"seedfall.dev/sdk/sim"
)

var (
	replicas = flag.String("replicas", "r1:7000,r2:7000", "the replicas, comma-separated")
	run      = flag.Duration("run", 8*time.Second, "how long to write and read")
	snapshot = flag.Duration("snapshot-every", 0, "also ask a replica for a SNAPSHOT this often (0: never)")
)

type history struct {
	mu     sync.Mutex
	acked  int          // the highest acknowledged version
	served map[int]bool // replicas that answered a read
}

func (h *history) floor() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.acked
}

func (h *history) write(addrs []string, stop time.Time) {
	current := 0
	for v := 1; time.Now().Before(stop); v++ {
		for tries := 0; tries < 2*len(addrs) && time.Now().Before(stop); tries++ {
			answer, err := wire.Call(addrs[current], "WRITE "+strconv.Itoa(v), 150*time.Millisecond)
			if err == nil && answer == "OK" {
				h.mu.Lock()
				h.acked = max(h.acked, v)
				h.mu.Unlock()
				break
			}
			if err != nil {
				// A silent replica (paused, or cut off): the other one may take over.
				fmt.Fprintf(os.Stderr, "lease client: write %d to %s: %v\n", v, addrs[current], err)
			}
			current = (current + 1) % len(addrs)
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func (h *history) read(i int, addr string) {
	floor := h.floor()
	answer, err := wire.Call(addr, "READ", 3*time.Second)
	f := strings.Fields(answer)
	if err != nil || len(f) != 2 || f[0] != "VAL" {
		return
	}
	got, _ := strconv.Atoi(f[1])
	h.mu.Lock()
	h.served[i] = true
	h.mu.Unlock()
	if got < floor {
		node := strings.Split(addr, ":")[0]
		msg := fmt.Sprintf("stale read: %s answered version %d after version %d was acknowledged", node, got, floor)
		fmt.Fprintln(os.Stderr, "lease client:", msg)
		sim.Fail(msg)
		os.Exit(1)
	}
}

func main() {
	flag.Parse()
	addrs := strings.Split(*replicas, ",")
	h := &history{served: map[int]bool{}}
	stop := time.Now().Add(*run)
	go h.write(addrs, stop)
	if *snapshot > 0 {
		go func() {
			for time.Now().Before(stop) {
				for _, addr := range addrs {
					go wire.Call(addr, "SNAPSHOT", 10*time.Second)
				}
				time.Sleep(*snapshot)
			}
		}()
	}
	var reads sync.WaitGroup
	for k := 0; time.Now().Before(stop); k++ {
		reads.Add(1)
		go func() {
			defer reads.Done()
			h.read(k%len(addrs), addrs[k%len(addrs)])
		}()
		time.Sleep(25 * time.Millisecond)
	}
	reads.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	sim.Sometimes(len(h.served) == len(addrs), "every replica served reads")
	fmt.Printf("lease client: %d versions acknowledged\n", h.acked)
}
