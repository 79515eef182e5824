// Command service is the ledger as a networked service: the same accounts
// and transfers as ./bank, behind HTTP on :8080, checked with the
// Antithesis Go SDK alone (no seedfall import). Under seedfall the
// standard library's net/http runs over the simulated network
// ("net_overlay": true) and the SDK's assertions are seedfall properties;
// as a plain program it is an ordinary HTTP server.
//
//	POST /transfer?from=0&to=3&amount=20   200 "ok", or 409 "refused" (an overdraft)
//	GET  /total                            the sum of every balance
//
// The bug (default): a transfer reads both balances, journals the transfer
// (a write that yields, as I/O does), then writes the balances it computed
// from what it read, so two concurrent requests over one account lose an
// update. -fixed holds the lock across the whole transfer.
//
//	service [-fixed] [-listen :8080]
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/antithesishq/antithesis-sdk-go/assert"
)

const (
	accounts = 5
	opening  = 100
)

type ledger struct {
	mu       sync.Mutex
	balances [accounts]int
	fixed    bool
	jmu      sync.Mutex // the journal's own lock
	journal  []string
}

func (l *ledger) transfer(from, to, amount int) bool {
	if l.fixed {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	l.lock()
	a, b := l.balances[from], l.balances[to]
	l.unlock()
	if a < amount {
		return false
	}
	l.record(fmt.Sprintf("%d -> %d: %d", from, to, amount))
	l.lock()
	l.balances[from], l.balances[to] = a-amount, b+amount
	l.unlock()
	return true
}

// lock and unlock guard single reads and writes in the buggy version; the
// fixed one already holds the lock for the whole transfer.
func (l *ledger) lock() {
	if !l.fixed {
		l.mu.Lock()
	}
}

func (l *ledger) unlock() {
	if !l.fixed {
		l.mu.Unlock()
	}
}

// record journals a transfer; the sleep stands for the write's latency.
func (l *ledger) record(entry string) {
	time.Sleep(time.Millisecond)
	l.jmu.Lock()
	l.journal = append(l.journal, entry)
	l.jmu.Unlock()
}

func (l *ledger) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := 0
	for _, b := range l.balances {
		sum += b
	}
	return sum
}

func account(r *http.Request, name string) (int, bool) {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	return n, err == nil && n >= 0 && n < accounts
}

func main() {
	fixed := flag.Bool("fixed", false, "hold the lock across each transfer")
	listen := flag.String("listen", ":8080", "address to serve on")
	flag.Parse()
	l := &ledger{fixed: *fixed}
	for i := range l.balances {
		l.balances[i] = opening
	}
	http.HandleFunc("POST /transfer", func(w http.ResponseWriter, r *http.Request) {
		from, okFrom := account(r, "from")
		to, okTo := account(r, "to")
		amount, err := strconv.Atoi(r.URL.Query().Get("amount"))
		if !okFrom || !okTo || from == to || err != nil || amount <= 0 {
			http.Error(w, "want from, to (0-4, different) and a positive amount", http.StatusBadRequest)
			return
		}
		ok := l.transfer(from, to, amount)
		assert.Sometimes(ok, "a transfer went through", nil)
		assert.Sometimes(!ok, "an overdraft was refused", nil)
		total := l.total()
		assert.Always(total == accounts*opening, "money is neither created nor destroyed", map[string]any{"total": total})
		if !ok {
			http.Error(w, "refused", http.StatusConflict)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("GET /total", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, l.total())
	})
	if err := http.ListenAndServe(*listen, nil); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}
