// Command progress is a workload of the world tests (cli/tests/world.rs)
// that imports sim.Progress: it calls it -calls times, then exits 0. With
// -calls 0 it uses Progress without reaching it, which is no_progress.
package main

import (
	"flag"
	"time"

	"seedfall.dev/sdk/sim"
)

func main() {
	calls := flag.Int("calls", 1, "how many times to call sim.Progress")
	flag.Parse()
	for range *calls {
		time.Sleep(10 * time.Millisecond)
		sim.Progress()
	}
}
