// Command replica is a lease-holding replica of the lease example. The
// replica that holds the store's lease serves reads from its own copy of
// the register and forwards writes to the store; a holder steps down after
// -term so leadership moves between replicas without any fault.
//
// How it decides it may still serve a read is the variant (-check):
//
//	flag       while its renewal loop last succeeded: a pause longer than
//	           the lease lets the other replica take over, and on resuming
//	           this one answers the reads that queued up before its renewal
//	           loop notices (stale reads; caught with pauses).
//	wallclock  until the store's expiry, compared with its own wall clock:
//	           a clock behind the store's keeps serving after the store has
//	           granted the lease to the other replica (caught with clock skew
//	           or jumps).
//	monotonic  the fix: until the time the grant was requested plus the lease
//	           minus a margin, on its own monotonic clock, checked on every
//	           read; pauses, skews and jumps cannot stretch it.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"seedfall.dev/examples/lease/internal/wire"
)

var (
	id        = flag.String("id", "", "this replica's name")
	listen    = flag.String("listen", ":7000", "address to serve")
	storeAddr = flag.String("store", "store:7000", "the lease store")
	check     = flag.String("check", "monotonic", "how a read decides the lease still holds: flag, wallclock or monotonic")
	lease     = flag.Duration("lease", 300*time.Millisecond, "the store's lease")
	margin    = flag.Duration("margin", 20*time.Millisecond, "monotonic: how much earlier than the lease to stop serving")
	term      = flag.Duration("term", time.Second, "step down after holding the lease this long")
	rest      = flag.Duration("rest", 700*time.Millisecond, "after stepping down, wait this long before asking again")
	checksum  = flag.Int("checksum", 1<<16, "SNAPSHOT: iterations of the call-free checksum it computes first")
)

// state is what SNAPSHOT checksums.
var state [4096]byte

// sum is a long computation with no function call in its loop: without
// loop counters it takes no virtual time at all (examples/busyloop).
func sum(iterations int) uint32 {
	h := uint32(2166136261)
	for i := 0; i < iterations; i++ {
		h = (h ^ uint32(state[i&4095])) * 16777619
	}
	return h
}

type replica struct {
	mu          sync.Mutex
	leader      bool
	since       time.Time // when this term began
	wallExpiry  int64     // the store's expiry, on the store's wall clock
	localExpiry time.Time // request time + lease - margin, on our monotonic clock
	version     int
}

// serving says whether a read or write may be served now.
func (r *replica) serving() bool {
	switch *check {
	case "flag":
		return r.leader
	case "wallclock":
		return r.leader && time.Now().UnixNano() < r.wallExpiry
	default:
		return r.leader && time.Now().Before(r.localExpiry)
	}
}

func (r *replica) handle(request string) string {
	f := strings.Fields(request)
	r.mu.Lock()
	ok, version := r.serving(), r.version
	r.mu.Unlock()
	switch {
	case len(f) == 1 && f[0] == "READ":
		if !ok {
			return "NOTLEADER"
		}
		return fmt.Sprintf("VAL %d", version)
	case len(f) == 1 && f[0] == "SNAPSHOT":
		if !ok {
			return "NOTLEADER"
		}
		return fmt.Sprintf("SUM %d %08x", version, sum(*checksum))
	case len(f) == 2 && f[0] == "WRITE":
		v, err := strconv.Atoi(f[1])
		if err != nil {
			return "ERR"
		}
		if !ok {
			return "NOTLEADER"
		}
		if answer, err := wire.Call(*storeAddr, "WRITE "+*id+" "+f[1], 100*time.Millisecond); err != nil || answer != "OK" {
			return "NOTLEADER"
		}
		r.mu.Lock()
		r.version = max(r.version, v)
		r.mu.Unlock()
		return "OK"
	}
	return "ERR"
}

// renew keeps the lease while this replica's term lasts, then steps down.
func (r *replica) renew() {
	for {
		time.Sleep(50 * time.Millisecond)
		r.mu.Lock()
		stepDown := r.leader && time.Since(r.since) > *term
		if stepDown && *check == "flag" {
			r.leader = false
		}
		r.mu.Unlock()
		if stepDown {
			// The other variants keep serving until their expiry says the lease ran out.
			time.Sleep(*rest)
			r.mu.Lock()
			r.leader = false
			r.mu.Unlock()
			continue
		}
		sent := time.Now()
		answer, err := wire.Call(*storeAddr, "ACQUIRE "+*id, 100*time.Millisecond)
		f := strings.Fields(answer)
		r.mu.Lock()
		if err == nil && len(f) == 3 && f[0] == "GRANT" {
			expiry, _ := strconv.ParseInt(f[1], 10, 64)
			version, _ := strconv.Atoi(f[2])
			if !r.leader {
				r.since = sent
				r.version = max(r.version, version)
				fmt.Fprintf(os.Stderr, "replica %s: lease acquired at version %d\n", *id, r.version)
			}
			r.leader, r.wallExpiry, r.localExpiry = true, expiry, sent.Add(*lease-*margin)
		} else {
			r.leader = false
		}
		r.mu.Unlock()
	}
}

func main() {
	flag.Parse()
	switch *check {
	case "flag", "wallclock", "monotonic":
	default:
		fmt.Fprintf(os.Stderr, "replica: unknown -check %q (flag, wallclock or monotonic)\n", *check)
		os.Exit(2)
	}
	r := &replica{}
	go r.renew()
	if err := wire.Serve(*listen, r.handle); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}
