// Command server is one raftbolt node: raftkv's server (examples/raftkv/server:
// api.go and fsm.go are copies) on hashicorp/raft v1.7.2 with
// hashicorp/raft-boltdb/v2 v2.3.1 (bbolt v1.4.3) as its LogStore and
// StableStore, in one file DIR/raft/raft.db; raft's stock TCP transport
// (port 7000, reached through net_overlay), raft's file snapshot store, and
// a key-value state machine. -nosync opens the store with raft-boltdb's
// Options.NoSync (bbolt's DB.NoSync: commits are never fsynced), the
// negative control. Its HTTP API (port 8000):
//
//	GET /leader    the leader's ID as this node knows it ("" if none)
//	PUT /k/KEY     stores the body as KEY's value through the raft log
//	GET /k/KEY     KEY's value: 200 with it, 404 if never set
//
// Writes go to the leader; another node answers 421 with the leader's ID
// in X-Leader. -reads says how reads are served: "log" puts them through
// the leader's raft log (linearizable), "local" lets any node answer from
// its own state machine without VerifyLeader (stale when it lags behind:
// the negative control for the linearizability check).
//
// Every node is started with the same -peers list and bootstraps the same
// 3-node configuration when its disk holds no raft state.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"seedfall.dev/sdk/sim"
)

const (
	raftPort = 7000
	httpPort = 8000
)

func main() {
	peers := flag.String("peers", "n1,n2,n3", "the IDs (host names) of every node of the cluster")
	data := flag.String("data", "/data", "data directory")
	reads := flag.String("reads", "log", "how the leader serves reads: log or local")
	logLevel := flag.String("log", "warn", "raft's log level")
	noSync := flag.Bool("nosync", false, "open raft-boltdb with NoSync (unsafe: the negative control)")
	flag.Parse()
	if *reads != "log" && *reads != "local" {
		fatalf("unknown -reads %q: use log or local", *reads)
	}
	id := sim.Node()
	r, fsm, err := start(id, strings.Split(*peers, ","), *data, *logLevel, *noSync)
	if err != nil {
		fatalf("start: %v", err)
	}
	api := &api{raft: r, fsm: fsm, localReads: *reads == "local"}
	fatalf("serve: %v", api.serve(fmt.Sprintf(":%d", httpPort)))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "raftbolt server: "+format+"\n", args...)
	os.Exit(1)
}

func start(id string, peers []string, data, logLevel string, noSync bool) (*raft.Raft, *kvFSM, error) {
	dir := filepath.Join(data, "raft")
	// Every directory on the way is made durable, its parent included:
	// a fresh disk has none of them, and a name is only durable once the
	// directory holding it is synced.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	for _, d := range []string{filepath.Dir(data), data, dir} {
		if err := syncDir(d); err != nil {
			return nil, nil, err
		}
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft-" + id, Level: hclog.LevelFromString(logLevel), Output: os.Stderr})
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(id)
	conf.Logger = logger
	conf.SnapshotThreshold = 64
	conf.SnapshotInterval = 2 * time.Second
	conf.TrailingLogs = 32
	// One bbolt file is both stores, as in Consul and Nomad. Nothing here
	// syncs DIR/raft after bbolt creates the file: that is bbolt's Open's
	// job (see examples/bbolt, strict.json).
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"), NoSync: noSync})
	if err != nil {
		return nil, nil, fmt.Errorf("bolt store: %w", err)
	}
	var logs raft.LogStore = store
	var stable raft.StableStore = store
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, logger)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot store: %w", err)
	}
	advertise, err := net.ResolveTCPAddr("tcp", fmt.Sprintf("%s:%d", id, raftPort))
	if err != nil {
		return nil, nil, err
	}
	trans, err := raft.NewTCPTransportWithLogger(fmt.Sprintf(":%d", raftPort), advertise, 3, 2*time.Second, logger)
	if err != nil {
		return nil, nil, fmt.Errorf("transport: %w", err)
	}
	existing, err := raft.HasExistingState(logs, stable, snaps)
	if err != nil {
		return nil, nil, err
	}
	if !existing {
		var servers []raft.Server
		for _, p := range peers {
			addr := raft.ServerAddress(fmt.Sprintf("%s:%d", p, raftPort))
			servers = append(servers, raft.Server{ID: raft.ServerID(p), Address: addr})
		}
		err := raft.BootstrapCluster(conf, logs, stable, snaps, trans, raft.Configuration{Servers: servers})
		if err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			return nil, nil, fmt.Errorf("bootstrap: %w", err)
		}
	}
	fsm := newFSM()
	r, err := raft.NewRaft(conf, fsm, logs, stable, snaps, trans)
	return r, fsm, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
