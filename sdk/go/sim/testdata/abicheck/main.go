// Command abicheck calls every function of package sim, so that its wasip1
// build imports the whole seedfall module; build_test.go checks the imports
// against docs/sdk-abi.md. It is not meant to be run.
package main

import (
	"time"

	"seedfall.dev/sdk/sim"
)

func main() {
	if !sim.InSimulation() {
		return
	}
	l, _ := sim.Listen("tcp", ":7000")
	c, _ := sim.Dial("tcp", "server:7000")
	_, _ = l, c
	sim.Assert(true, "assert")
	sim.Always(true, "always")
	sim.Sometimes(true, "sometimes")
	sim.Reachable("reachable")
	sim.Unreachable("unreachable")
	sim.Eventually(time.Second, func() bool { return true }, "eventually")
	sim.QuietFor(time.Second)
	sim.SetupComplete()
	sim.Progress()
	println(sim.Node(), sim.Incarnation(), sim.Budget(10))
	sim.Put(1, "x", "1").Ok()
	sim.Get(1, "x").Returned("1")
	tx := sim.Txn(1)
	tx.Append("x", 1)
	tx.Read("x", []int{1})
	tx.Committed()
	sim.Fail("fail")
}
