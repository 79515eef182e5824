// Command node is one member of the splitbrain cluster: a go.etcd.io/raft/v3
// (v3.7.0) RawNode driven by one goroutine, talking to its peers in UDP
// datagrams on port 7000, with a raft.MemoryStorage (the cluster runs no
// crashes, so nothing has to survive one).
//
// Every datagram starts with one byte saying what it is:
//
//	'm' or 'p' <bytes>   a raft message from a peer (codec.go)
//	'?'                  a status request (from the workload)
//	's' <text>           the answer to '?': "ID LEAD TERM T1,T2,..."
//
// where ID is this node's raft ID, LEAD the leader it knows of (0 if
// none), TERM its current term, and T1,T2,... every term in which it
// became leader, oldest first (the list only grows). The workload unions
// these lists across the cluster and fails if two nodes claim one term.
//
// Node nK has raft ID K. -grant-all-votes makes the node answer every vote
// and pre-vote request with a grant at once, without asking raft (which
// would refuse a second candidate in a term it already voted in): the
// negative control, which lets two candidates win the same term.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
	"seedfall.dev/sdk/sim"
)

const port = 7000

func main() {
	peers := flag.String("peers", "n1,n2,n3,n4,n5", "every node of the cluster, in raft ID order")
	tick := flag.Duration("tick", 40*time.Millisecond, "how often raft's logical clock ticks")
	electionTicks := flag.Int("election-ticks", 3, "raft's ElectionTick: ticks without a leader before a follower campaigns (randomized up to twice that)")
	heartbeatTicks := flag.Int("heartbeat-ticks", 2, "raft's HeartbeatTick: ticks between a leader's heartbeats")
	grantAll := flag.Bool("grant-all-votes", false, "grant every vote request without asking raft (unsafe: the negative control)")
	flag.Parse()

	names := strings.Split(*peers, ",")
	self := sim.Node()
	var id uint64
	addrs := map[uint64]*net.UDPAddr{}
	for i, name := range names {
		if name == self {
			id = uint64(i + 1)
			continue
		}
		a, err := net.ResolveUDPAddr("udp", fmt.Sprintf("%s:%d", name, port))
		if err != nil {
			fatalf("resolve %s: %v", name, err)
		}
		addrs[uint64(i+1)] = a
	}
	if id == 0 {
		fatalf("node %q is not one of -peers %q", self, *peers)
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{Port: port})
	if err != nil {
		fatalf("listen: %v", err)
	}

	storage := raft.NewMemoryStorage()
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              id,
		ElectionTick:    *electionTicks,
		HeartbeatTick:   *heartbeatTicks,
		Storage:         storage,
		MaxSizePerMsg:   64 * 1024,
		MaxInflightMsgs: 64,
		PreVote:         true,
		CheckQuorum:     true,
		Logger:          quiet{},
	})
	if err != nil {
		fatalf("raft: %v", err)
	}
	boot := make([]raft.Peer, len(names))
	for i := range boot {
		boot[i] = raft.Peer{ID: uint64(i + 1)}
	}
	if err := rn.Bootstrap(boot); err != nil {
		fatalf("bootstrap: %v", err)
	}

	n := &node{id: id, rn: rn, storage: storage, conn: conn, peers: addrs, grantAll: *grantAll}
	// One goroutine does everything: it waits for a datagram until the
	// next tick is due, so raft's state needs no lock and a status answer
	// is exactly the state after the last Ready. The first tick comes at
	// a seeded point of the first period, so the five clocks do not tick
	// in step.
	buf := make([]byte, 64*1024)
	next := time.Now().Add(1 + time.Duration(rand.Int64N(int64(*tick))))
	for {
		conn.SetReadDeadline(next)
		k, from, err := conn.ReadFromUDP(buf)
		switch {
		case err == nil:
			if k > 0 {
				n.handle(from, buf[:k])
			}
		case errors.Is(err, os.ErrDeadlineExceeded):
			rn.Tick()
			next = next.Add(*tick)
		default:
			fatalf("receive: %v", err)
		}
		n.ready()
	}
}

type node struct {
	id       uint64
	rn       *raft.RawNode
	storage  *raft.MemoryStorage
	conn     *net.UDPConn
	peers    map[uint64]*net.UDPAddr
	grantAll bool

	led []uint64 // the terms in which this node became leader, in order
}

func (n *node) handle(from *net.UDPAddr, data []byte) {
	switch data[0] {
	case '?':
		n.conn.WriteToUDP(n.status(), from)
	case 'm', 'p':
		m, err := decodeMessage(data)
		if err != nil {
			fmt.Fprintf(os.Stderr, "splitbrain node: bad message from %v: %v\n", from, err)
			return
		}
		if n.grantAll && (m.GetType() == raftpb.MsgVote || m.GetType() == raftpb.MsgPreVote) {
			resp := raftpb.MsgVoteResp
			if m.GetType() == raftpb.MsgPreVote {
				resp = raftpb.MsgPreVoteResp
			}
			n.send([]*raftpb.Message{{Type: resp.Enum(), To: new(m.GetFrom()), From: new(n.id), Term: new(m.GetTerm())}})
			return
		}
		n.rn.Step(m) // an error is a message for an unknown peer or a local type: ignored, as etcd does
	}
}

// ready processes every Ready raft has: the entries and hard state go to
// the MemoryStorage before the messages are sent, as raft requires.
func (n *node) ready() {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if !raft.IsEmptyHardState(rd.HardState) {
			n.storage.SetHardState(rd.HardState)
		}
		n.storage.Append(rd.Entries)
		n.send(rd.Messages)
		for _, e := range rd.CommittedEntries {
			if e.GetType() == raftpb.EntryConfChange {
				var cc raftpb.ConfChange
				if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
					fatalf("conf change %d: %v", e.GetIndex(), err)
				}
				n.rn.ApplyConfChange(&cc)
			}
		}
		// The RawNode is only used by this goroutine, so its status is the
		// state this Ready came from.
		st := n.rn.BasicStatus()
		if st.RaftState == raft.StateLeader && (len(n.led) == 0 || n.led[len(n.led)-1] != st.HardState.GetTerm()) {
			n.led = append(n.led, st.HardState.GetTerm())
			fmt.Fprintf(os.Stderr, "splitbrain node %d: leader in term %d\n", n.id, st.HardState.GetTerm())
		}
		n.rn.Advance(rd)
	}
}

func (n *node) send(ms []*raftpb.Message) {
	for _, m := range ms {
		to, ok := n.peers[m.GetTo()]
		if !ok {
			continue
		}
		b, err := encodeMessage(m)
		if err != nil {
			fatalf("marshal: %v", err)
		}
		n.conn.WriteToUDP(b, to) // a lost datagram is raft's to retry
	}
}

// status is "ID LEAD TERM T1,T2,...".
func (n *node) status() []byte {
	st := n.rn.BasicStatus()
	b := []byte{'s'}
	b = strconv.AppendUint(b, n.id, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, st.Lead, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, st.HardState.GetTerm(), 10)
	b = append(b, ' ')
	for i, t := range n.led {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, t, 10)
	}
	return b
}

// quiet is raft's logger: nothing below an error is formatted at all
// (raft.DefaultLogger formats every Info line before discarding it).
type quiet struct{}

func (quiet) Debug(...any)              {}
func (quiet) Debugf(string, ...any)     {}
func (quiet) Info(...any)               {}
func (quiet) Infof(string, ...any)      {}
func (quiet) Warning(...any)            {}
func (quiet) Warningf(string, ...any)   {}
func (quiet) Error(v ...any)            { fmt.Fprintln(os.Stderr, v...) }
func (quiet) Errorf(f string, v ...any) { fmt.Fprintf(os.Stderr, f+"\n", v...) }
func (quiet) Fatal(v ...any)            { fatalf("%s", fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) { fatalf(f, v...) }
func (quiet) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "splitbrain node: "+format+"\n", args...)
	os.Exit(1)
}
