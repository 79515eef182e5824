// Command client is raftkv's workload, in one of three modes (lin and
// durable from package kvclient):
//
//   - elect (elect.go): after every heal all nodes know the same leader
//     within -within;
//   - lin: -clients concurrent clients put and get a few keys and
//     record the history, which the simulator checks for linearizability;
//     after the faults end every key is read once more;
//   - durable: every client writes increasing values to its own
//     key; after the faults end, each key holds at least its last
//     acknowledged value.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"seedfall.dev/examples/kvclient"
)

func main() {
	mode := flag.String("mode", "elect", "what to check: elect, lin or durable")
	nodes := flag.String("nodes", "n1,n2,n3", "the cluster's nodes")
	rounds := flag.Int("rounds", 5, "fault rounds, each ended by a heal")
	within := flag.Duration("within", 5*time.Second, "how soon after a heal every node must know the leader")
	clients := flag.Int("clients", 4, "concurrent clients (lin, durable)")
	keys := flag.Int("keys", 3, "how many keys (lin)")
	runFor := flag.Duration("for", 20*time.Second, "how long the clients run (lin, durable)")
	flag.Parse()
	peers := strings.Split(*nodes, ",")
	switch *mode {
	case "elect":
		elect(peers, *rounds, *within)
	case "lin":
		kvclient.Lin(peers, *clients, *keys, *runFor)
	case "durable":
		kvclient.Durable(peers, *clients, *runFor)
	default:
		fmt.Fprintf(os.Stderr, "raftkv client: unknown -mode %q\n", *mode)
		os.Exit(2)
	}
}
