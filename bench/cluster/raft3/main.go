// raft3: three hashicorp/raft v1.8.0 nodes in one process over raft's
// in-memory transport elect a leader, then commit -n commands in batches of
// 64; the process exits when every node's state machine has applied all of
// them. The guest CPU of a raft cluster, runnable natively, under seedfall
// exec and under wazero alike (no network, no disk). A batch that loses its
// leader (a loaded machine can starve real-time heartbeats) is retried on the
// next leader; commands carry their number and a state machine counts each number
// once, since a lost batch may still have committed in part. With -n -1 it
// exits at the start of main: the process, its loading and Go's runtime init.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

type counter struct {
	mu      sync.Mutex
	seen    []bool
	applied int
	sum     uint64
}

func (c *counter) Apply(l *raft.Log) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := binary.LittleEndian.Uint64(l.Data)
	if !c.seen[v] {
		c.seen[v] = true
		c.applied++
		c.sum += v
	}
	return nil
}

func (c *counter) Snapshot() (raft.FSMSnapshot, error) { return nil, fmt.Errorf("not used") }
func (c *counter) Restore(io.ReadCloser) error         { return fmt.Errorf("not used") }

func (c *counter) state() (int, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.applied, c.sum
}

func main() {
	n := flag.Int("n", 3000, "commands to commit (-1: exit at once, the Go runtime's start alone)")
	flag.Parse()
	if *n < 0 {
		return
	}
	ids := []raft.ServerID{"a", "b", "c"}
	var servers []raft.Server
	transports := map[raft.ServerID]*raft.InmemTransport{}
	for _, id := range ids {
		addr, t := raft.NewInmemTransport(raft.ServerAddress(id))
		transports[id] = t
		servers = append(servers, raft.Server{ID: id, Address: addr})
	}
	for _, a := range ids {
		for _, b := range ids {
			if a != b {
				transports[a].Connect(raft.ServerAddress(b), transports[b])
			}
		}
	}
	var nodes []*raft.Raft
	var fsms []*counter
	for _, id := range ids {
		conf := raft.DefaultConfig()
		conf.LocalID = id
		conf.HeartbeatTimeout = 200 * time.Millisecond
		conf.ElectionTimeout = 200 * time.Millisecond
		conf.LeaderLeaseTimeout = 200 * time.Millisecond
		conf.CommitTimeout = 5 * time.Millisecond
		conf.Logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
		store := raft.NewInmemStore()
		fsm := &counter{seen: make([]bool, *n+1)}
		r, err := raft.NewRaft(conf, fsm, store, store, raft.NewInmemSnapshotStore(), transports[id])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := r.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		nodes = append(nodes, r)
		fsms = append(fsms, fsm)
	}
	var want uint64
	for v := 1; v <= *n; v++ {
		want += uint64(v)
	}
	for done := 0; done < *n; {
		batch := min(64, *n-done)
		if commit(waitLeader(nodes), done, batch) {
			done += batch
		}
	}
	for _, fsm := range fsms {
		for {
			applied, sum := fsm.state()
			if applied == *n {
				if sum != want {
					fmt.Fprintf(os.Stderr, "sum %d, want %d\n", sum, want)
					os.Exit(1)
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Printf("raft3: %d commands on 3 nodes, sum=%d\n", *n, want)
}

// commit applies commands done+1..done+batch on leader and reports whether
// all of them committed.
func commit(leader *raft.Raft, done, batch int) bool {
	futures := make([]raft.ApplyFuture, batch)
	for i := range futures {
		futures[i] = leader.Apply(binary.LittleEndian.AppendUint64(nil, uint64(done+i+1)), 0)
	}
	ok := true
	for _, f := range futures {
		ok = f.Error() == nil && ok
	}
	return ok
}

func waitLeader(nodes []*raft.Raft) *raft.Raft {
	for {
		for _, r := range nodes {
			if r.State() == raft.Leader {
				return r
			}
		}
		time.Sleep(time.Millisecond)
	}
}
