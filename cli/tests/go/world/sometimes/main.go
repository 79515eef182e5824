// Command sometimes is a workload that reports a Sometimes that is never
// true, then exits 0: the sweep must fail on it (cli/tests/world.rs). Its
// own package, so the static catalog of the other world configs does not
// list it.
package main

import "seedfall.dev/sdk/sim"

func main() {
	sim.Sometimes(false, "never true")
}
