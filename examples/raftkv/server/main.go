// Command server is one raftkv node: hashicorp/raft v1.8.0 over its stock
// TCP transport (port 7000, reached through net_overlay), a file-backed log
// and stable store that fsync (logstore.go, stablestore.go), raft's file
// snapshot store, and a key-value state machine. Its HTTP API (port 8000):
//
//	GET /leader    the leader's ID as this node knows it ("" if none)
//	PUT /k/KEY     stores the body as KEY's value through the raft log
//	GET /k/KEY     KEY's value: 200 with it, 404 if never set
//
// Writes go to the leader; another node answers 421 with the leader's ID
// in X-Leader. -reads says how reads are served: "log" puts them through
// the leader's raft log (linearizable), "local" lets any node answer from
// its own state machine (stale when it lags behind: the negative control
// for the linearizability check), "leader" lets the node that believes it
// leads answer from its state without VerifyLeader (stale only while a
// deposed leader still believes it leads).
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
	"seedfall.dev/sdk/sim"
)

const (
	raftPort = 7000
	httpPort = 8000
)

func main() {
	peers := flag.String("peers", "n1,n2,n3", "the IDs (host names) of every node of the cluster")
	data := flag.String("data", "/data", "data directory")
	reads := flag.String("reads", "log", "how the leader serves reads: log, local or leader")
	logLevel := flag.String("log", "warn", "raft's log level")
	logFsync := flag.Bool("log-fsync", true, "fsync the raft log on every commit (false: the negative control)")
	transport := flag.String("transport", "tcp", "raft's transport: tcp (the standard library's, through net_overlay) or sim (sim.Listen and sim.Dial)")
	flag.Parse()
	if *transport != "tcp" && *transport != "sim" {
		fatalf("unknown -transport %q: use tcp or sim", *transport)
	}
	if *reads != "log" && *reads != "local" && *reads != "leader" {
		fatalf("unknown -reads %q: use log, local or leader", *reads)
	}
	id := sim.Node()
	r, fsm, err := start(id, strings.Split(*peers, ","), *data, *logLevel, *transport, !*logFsync)
	if err != nil {
		fatalf("start: %v", err)
	}
	api := &api{raft: r, fsm: fsm, reads: *reads}
	fatalf("serve: %v", api.serve(fmt.Sprintf(":%d", httpPort)))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "raftkv server: "+format+"\n", args...)
	os.Exit(1)
}

func start(id string, peers []string, data, logLevel, transport string, noLogSync bool) (*raft.Raft, *kvFSM, error) {
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
	logs, err := openLogStore(dir, noLogSync)
	if err != nil {
		return nil, nil, fmt.Errorf("log store: %w", err)
	}
	stable, err := openStableStore(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("stable store: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, logger)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot store: %w", err)
	}
	trans, err := newTransport(id, transport, logger)
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

// newTransport is raft's TCP transport, or the same network transport over
// seedfall's stream sockets (stream.go).
func newTransport(id, kind string, logger hclog.Logger) (*raft.NetworkTransport, error) {
	if kind == "sim" {
		stream, err := newSimStream(id, raftPort)
		if err != nil {
			return nil, err
		}
		return raft.NewNetworkTransportWithLogger(stream, 3, 2*time.Second, logger), nil
	}
	advertise, err := net.ResolveTCPAddr("tcp", fmt.Sprintf("%s:%d", id, raftPort))
	if err != nil {
		return nil, err
	}
	return raft.NewTCPTransportWithLogger(fmt.Sprintf(":%d", raftPort), advertise, 3, 2*time.Second, logger)
}
