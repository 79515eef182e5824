// Command client is splitbrain's workload: it asks every node, every
// -poll of virtual time, which terms it became leader in, keeps the union
// of the answers (term -> node), and fails the run the moment two
// different nodes claim the same term:
//
//	two leaders in term 7: n2 and n4
//
// It waits for the first leader before it lets the faults start
// (sim.SetupComplete), watches the cluster through the config's partitions
// for -for, then stops the faults for good (sim.QuietFor), so the network
// heals, and polls until every node has answered since the heal and the
// nodes agree on one leader (or -settle passes), so that a claim a node
// made while cut off from the workload is still counted.
//
// Nodes answer over UDP (node/main.go): '?' to port 7000 gets
// "s ID LEAD TERM T1,T2,...".
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"seedfall.dev/sdk/sim"
)

const port = 7000

func main() {
	nodes := flag.String("nodes", "n1,n2,n3,n4,n5", "the cluster's nodes, in raft ID order")
	poll := flag.Duration("poll", 100*time.Millisecond, "how often every node is asked")
	runFor := flag.Duration("for", time.Second, "how long the faults run once a leader is elected")
	settle := flag.Duration("settle", 2*time.Second, "how long to wait after the heal for every node to answer and agree on a leader")
	flag.Parse()

	names := strings.Split(*nodes, ",")
	w := &watcher{names: names, claims: map[uint64]uint64{}, answered: map[uint64]bool{}}
	for _, name := range names {
		a, err := net.ResolveUDPAddr("udp", fmt.Sprintf("%s:%d", name, port))
		if err != nil {
			fatalf("resolve %s: %v", name, err)
		}
		w.addrs = append(w.addrs, a)
	}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{})
	if err != nil {
		fatalf("listen: %v", err)
	}
	w.conn = conn

	// Normal operation: the first election, without faults.
	start := time.Now()
	for len(w.claims) == 0 {
		if time.Since(start) > 10*time.Second {
			fatalf("no leader after %v without faults", time.Since(start))
		}
		w.round(*poll)
	}
	sim.SetupComplete()

	// Partitions and heals, as the config draws them.
	end := time.Now().Add(*runFor)
	for time.Now().Before(end) {
		w.round(*poll)
	}

	// The final heal: no more faults; every node must be heard from again.
	sim.QuietFor(*settle + time.Second)
	healed := time.Now()
	w.round(*poll) // reads the answers to requests sent before the heal
	clear(w.answered)
	for time.Since(healed) < *settle {
		w.round(*poll)
		if w.agreed() {
			break
		}
	}
	sim.Sometimes(len(w.answered) == len(names), "every node answered after the heal")
	sim.Sometimes(w.agreed(), "the healed cluster agreed on one leader")
	sim.Sometimes(len(w.claims) > 1, "leadership changed hands")

	terms := make([]string, 0, len(w.claims))
	for t := uint64(0); len(terms) < len(w.claims); t++ {
		if n, ok := w.claims[t]; ok {
			terms = append(terms, fmt.Sprintf("%d:%s", t, w.name(n)))
		}
	}
	fmt.Printf("splitbrain client: %d polls, %d leader terms, one leader each: %s\n", w.polls, len(w.claims), strings.Join(terms, " "))
}

type watcher struct {
	names    []string
	addrs    []*net.UDPAddr
	conn     *net.UDPConn
	polls    int
	pending  int               // answers asked for and not read yet
	claims   map[uint64]uint64 // term -> the raft ID that said it led it
	answered map[uint64]bool   // raft IDs that answered since it was cleared
	leads    map[uint64]uint64 // raft ID -> the leader it named in its last answer
}

// round asks every node, reads the answers to the earlier rounds and
// sleeps until d after it began. Answers are read from the queue only
// once a round, and the read waits only for earlier rounds' answers, which
// have long arrived unless a partition dropped them, so the workload
// wakes once a round rather than once an answer. (The read's deadline is
// the round's end, the instant the sleep wakes anyway: a deadline timer
// that outlives the read wakes nobody.)
func (w *watcher) round(d time.Duration) {
	w.polls++
	next := time.Now().Add(d)
	for _, a := range w.addrs {
		w.conn.WriteToUDP([]byte{'?'}, a) // a lost request is asked again next round
	}
	w.pending += len(w.addrs)
	buf := make([]byte, 4096)
	w.conn.SetReadDeadline(next)
	for w.pending > len(w.addrs) {
		k, _, err := w.conn.ReadFromUDP(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				break // the missing answers were dropped
			}
			continue // a refused request (ICMP port unreachable) is a lost one
		}
		w.pending--
		w.take(string(buf[:k]))
	}
	w.pending = min(w.pending, len(w.addrs))
	time.Sleep(time.Until(next))
}

// take merges one answer "s ID LEAD TERM T1,T2,...".
func (w *watcher) take(answer string) {
	f := strings.Fields(strings.TrimPrefix(answer, "s"))
	if len(f) < 3 {
		fatalf("bad answer %q", answer)
	}
	id, err1 := strconv.ParseUint(f[0], 10, 64)
	lead, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		fatalf("bad answer %q", answer)
	}
	w.answered[id] = true
	if w.leads == nil {
		w.leads = map[uint64]uint64{}
	}
	w.leads[id] = lead
	if len(f) < 4 {
		return
	}
	for _, s := range strings.Split(f[3], ",") {
		term, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fatalf("bad answer %q", answer)
		}
		other, seen := w.claims[term]
		if !seen {
			w.claims[term] = id
			continue
		}
		if other != id {
			msg := fmt.Sprintf("two leaders in term %d: %s and %s", term, w.name(min(id, other)), w.name(max(id, other)))
			fmt.Fprintf(os.Stderr, "splitbrain client: %s\n", msg)
			sim.Fail(msg)
			os.Exit(1)
		}
	}
}

// agreed: every node answered and names the same, non-zero leader.
func (w *watcher) agreed() bool {
	if len(w.answered) != len(w.names) {
		return false
	}
	var lead uint64
	for id := range w.answered {
		l := w.leads[id]
		if l == 0 || (lead != 0 && l != lead) {
			return false
		}
		lead = l
	}
	return true
}

func (w *watcher) name(id uint64) string {
	if id == 0 || id > uint64(len(w.names)) {
		return "?"
	}
	return w.names[id-1]
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "splitbrain client: "+format+"\n", args...)
	os.Exit(1)
}
