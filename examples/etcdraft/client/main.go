// Command client is etcdraft's workload (package kvclient), in one of two modes:
//
//   - lin: -clients concurrent clients put and get a few keys and
//     record the history, which the simulator checks for linearizability;
//     after the faults end every key is read once more, so a lost
//     acknowledged write shows in the history too;
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
	mode := flag.String("mode", "lin", "what to check: lin or durable")
	nodes := flag.String("nodes", "n1,n2,n3", "the cluster's nodes")
	clients := flag.Int("clients", 4, "concurrent clients")
	keys := flag.Int("keys", 3, "how many keys (lin)")
	runFor := flag.Duration("for", 20*time.Second, "how long the clients run")
	flag.Parse()
	peers := strings.Split(*nodes, ",")
	switch *mode {
	case "lin":
		kvclient.Lin(peers, *clients, *keys, *runFor)
	case "durable":
		kvclient.Durable(peers, *clients, *runFor)
	default:
		fmt.Fprintf(os.Stderr, "etcdraft client: unknown -mode %q\n", *mode)
		os.Exit(2)
	}
}
