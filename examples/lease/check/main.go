// Command check is the lease example's finally check: run after the
// workload on the healed cluster, it passes once some replica holds the
// lease and serves a read, and fails (exit 1) if none does within -within.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"seedfall.dev/examples/lease/internal/wire"
)

var (
	replicas = flag.String("replicas", "r1:7000,r2:7000", "the replicas, comma-separated")
	within   = flag.Duration("within", 5*time.Second, "how long a replica may take to serve a read")
)

func main() {
	flag.Parse()
	deadline := time.Now().Add(*within)
	for time.Now().Before(deadline) {
		for _, addr := range strings.Split(*replicas, ",") {
			if answer, err := wire.Call(addr, "READ", 200*time.Millisecond); err == nil && strings.HasPrefix(answer, "VAL ") {
				fmt.Printf("lease check: %s serves reads (%s)\n", addr, answer)
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "lease check: no replica served a read within %v\n", *within)
	os.Exit(1)
}
