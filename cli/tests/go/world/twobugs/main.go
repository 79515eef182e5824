// Command twobugs is a service with two independent bugs, each switched on
// by a flag and each striking a seeded share of runs (one draw of the
// world's randomness per run), for the findings tests (cli/tests/triage.rs):
// -a panics in a share -a-share of runs (default 0.3), -b in the runs whose
// draw is 0.5 or more, so no run meets both. With -workload it is the
// workload instead: it waits a little and exits 0.
package main

import (
	"flag"
	"math/rand/v2"
	"time"
)

func main() {
	a := flag.Bool("a", false, "bug a: lose the lease in a share of runs")
	aShare := flag.Float64("a-share", 0.3, "the share of runs bug a strikes")
	b := flag.Bool("b", false, "bug b: apply a write twice in half the runs")
	workload := flag.Bool("workload", false, "be the workload")
	flag.Parse()
	if *workload {
		time.Sleep(200 * time.Millisecond)
		return
	}
	draw := rand.Float64()
	if *a && draw < *aShare {
		panic("bug a: the lease was lost")
	}
	if *b && draw >= 0.5 {
		panic("bug b: a write was applied twice")
	}
	time.Sleep(time.Hour)
}
