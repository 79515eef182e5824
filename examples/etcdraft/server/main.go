// Command server is one etcdraft node: go.etcd.io/raft/v3 v3.7.0 with
// etcd's own write-ahead log (go.etcd.io/etcd/server/v3/storage/wal) and
// snapshotter (etcdserver/api/snap), v3.7.3, put together as etcd's
// contrib/raftexample does (raft.go), a small HTTP transport between the
// nodes (transport.go, port 7000) and a key-value store with an HTTP API
// (api.go, port 8000):
//
//	GET /leader    the leader's name as this node knows it ("" if none)
//	PUT /k/KEY     stores the body as KEY's value through the raft log
//	GET /k/KEY     KEY's value after a ReadIndex round (linearizable):
//	               200 with it, 404 if never set
//
// Writes go to the leader; another node answers 421 with the leader's name
// in X-Leader. Reads are served by any node: raft forwards the ReadIndex
// request to the leader, which confirms its leadership with a quorum of
// heartbeats (ReadOnlySafe) before it answers. -reads local answers from
// the node's own state instead (the negative control for linearizability).
//
// Node nK has raft ID K. Every node is started with the same -peers list;
// a node whose data directory holds no WAL starts the cluster with it
// (raft.StartNode), one with a WAL restarts from it (raft.RestartNode).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"seedfall.dev/sdk/sim"
)

const (
	raftPort = 7000
	httpPort = 8000
)

func main() {
	peers := flag.String("peers", "n1,n2,n3", "the names of every node of the cluster, in raft ID order")
	data := flag.String("data", "/data", "data directory")
	reads := flag.String("reads", "index", "how reads are served: index (ReadIndex) or local")
	snapCount := flag.Uint64("snap-count", 32, "applied entries between snapshots")
	flag.Parse()
	if *reads != "index" && *reads != "local" {
		fatalf("unknown -reads %q: use index or local", *reads)
	}
	names := strings.Split(*peers, ",")
	self := sim.Node() // the only seedfall call: which node this is
	id := uint64(0)
	for i, n := range names {
		if n == self {
			id = uint64(i + 1)
		}
	}
	if id == 0 {
		fatalf("node %q is not one of -peers %q", self, *peers)
	}
	rn := newRaftNode(id, names, *data, *snapCount)
	api := &api{rn: rn, localReads: *reads == "local"}
	rn.start()
	go func() { fatalf("raft transport: %v", rn.trans.serve(fmt.Sprintf(":%d", raftPort))) }()
	fatalf("serve: %v", api.serve(fmt.Sprintf(":%d", httpPort)))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "etcdraft server: "+format+"\n", args...)
	os.Exit(1)
}

func idName(names []string, id uint64) string {
	if id == 0 || id > uint64(len(names)) {
		return ""
	}
	return names[id-1]
}
