// Command catalog is a workload whose source holds properties it never
// reaches: the static catalog must list them and fail the sweep for the
// Always and Reachable ones. Run with -reach to reach all of them, and with
// -unreachable to reach the Unreachable one too, which fails the run.
package main

import (
	"flag"
	"fmt"

	at "github.com/antithesishq/antithesis-sdk-go/assert"
	"seedfall.dev/sdk/sim"
)

func main() {
	reach := flag.Bool("reach", false, "reach every property")
	unreachable := flag.Bool("unreachable", false, "reach the sim.Unreachable as well")
	flag.Parse()
	sim.Always(true, "always, reached")
	if *reach {
		sim.Always(true, "always, "+"never reached")
		sim.Reachable("reachable, never reached")
		at.Reachable("antithesis reachable, never reached", nil)
	}
	sim.Sometimes(true, fmt.Sprintf("not a literal %d", 1))
	if *unreachable {
		sim.Unreachable("unreachable, reached only with -unreachable")
	}
}
