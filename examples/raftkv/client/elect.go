package main

// elect checks leader election: once a first leader is known it lets
// faults run for 6 s, then opens a quiet window (sim.QuietFor: partitions
// heal, no new faults) and requires that every node reports the same
// leader within `within` of virtual time (sim.Eventually), rounds times.

import (
	"fmt"
	"time"

	"seedfall.dev/examples/kvclient"
	"seedfall.dev/sdk/sim"
)

// faultsFor is how long each round lets faults run before the heal.
const faultsFor = 6 * time.Second

func elect(nodes []string, rounds int, within time.Duration) {
	sim.Eventually(10*time.Second, func() bool { return kvclient.AgreedLeader(nodes) != "" }, "a first leader is elected")
	sim.SetupComplete()
	for round := 1; round <= rounds; round++ {
		time.Sleep(faultsFor)
		healed := time.Now()
		sim.QuietFor(within)
		var leader string
		sim.Eventually(within, func() bool {
			leader = kvclient.AgreedLeader(nodes)
			return leader != ""
		}, fmt.Sprintf("within %v of a heal every node knows the same leader", within))
		fmt.Printf("round %d: leader %s after %v\n", round, leader, time.Since(healed).Round(time.Millisecond))
		// The next round's faults start when this quiet window ends.
		time.Sleep(time.Until(healed.Add(within)))
	}
}
