package main

// elect checks leader election: once a first leader is known it lets
// faults run for 6 s, then opens a quiet window (sim.QuietFor: partitions
// heal, no new faults) and requires that every node reports the same
// leader within `within` of virtual time (sim.Eventually), rounds times.

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"seedfall.dev/sdk/sim"
)

// httpClient's timeout keeps a query to a partitioned node from outliving
// one poll of sim.Eventually by much.
var httpClient = &http.Client{Timeout: 300 * time.Millisecond}

// faultsFor is how long each round lets faults run before the heal.
const faultsFor = 6 * time.Second

func elect(nodes []string, rounds int, within time.Duration) {
	sim.Eventually(10*time.Second, func() bool { return agreedLeader(nodes) != "" }, "a first leader is elected")
	sim.SetupComplete()
	for round := 1; round <= rounds; round++ {
		time.Sleep(faultsFor)
		healed := time.Now()
		sim.QuietFor(within)
		var leader string
		sim.Eventually(within, func() bool {
			leader = agreedLeader(nodes)
			return leader != ""
		}, fmt.Sprintf("within %v of a heal every node knows the same leader", within))
		fmt.Printf("round %d: leader %s after %v\n", round, leader, time.Since(healed).Round(time.Millisecond))
		// The next round's faults start when this quiet window ends.
		time.Sleep(time.Until(healed.Add(within)))
	}
}

// agreedLeader is the leader every node reports, or "" while they do not
// all report the same one.
func agreedLeader(nodes []string) string {
	var agreed string
	for i, n := range nodes {
		id, err := leaderOf(n)
		if err != nil || id == "" || (i > 0 && id != agreed) {
			return ""
		}
		agreed = id
	}
	return agreed
}

func leaderOf(node string) (string, error) {
	resp, err := httpClient.Get("http://" + node + ":8000/leader")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}
