// Command bank is a ledger of accounts and concurrent transfers between
// them, checked with the Antithesis Go SDK alone: no seedfall import. It
// runs the same under seedfall (the SDK's assertions become seedfall
// properties) and as a plain program (they do nothing).
//
// The bug (default): a transfer reads both balances, records the transfer
// in its journal (a step that yields, as any I/O would), then writes the
// balances it computed from what it read. Two transfers that touch the same
// account interleaved there lose one's update, and money appears or
// vanishes. -fixed holds the ledger's lock across the whole transfer.
//
//	bank [-fixed] [-tellers 4] [-transfers 25]
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"time"

	"github.com/antithesishq/antithesis-sdk-go/assert"
	"github.com/antithesishq/antithesis-sdk-go/lifecycle"
)

const (
	accounts = 5
	opening  = 100
)

type ledger struct {
	mu       sync.Mutex
	balances [accounts]int
	journal  []string
	fixed    bool
}

// transfer moves amount from one account to another, refusing overdrafts.
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
	l.journal = append(l.journal, entry)
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

func main() {
	fixed := flag.Bool("fixed", false, "hold the lock across each transfer")
	tellers := flag.Int("tellers", 4, "concurrent transfer goroutines")
	transfers := flag.Int("transfers", 25, "transfers per teller")
	flag.Parse()
	l := &ledger{fixed: *fixed}
	for i := range l.balances {
		l.balances[i] = opening
	}
	lifecycle.SetupComplete(map[string]any{"accounts": accounts})
	var wg sync.WaitGroup
	for t := 0; t < *tellers; t++ {
		wg.Add(1)
		go func(r *rand.Rand) {
			defer wg.Done()
			for i := 0; i < *transfers; i++ {
				from, to := r.Intn(accounts), r.Intn(accounts)
				if from == to {
					continue
				}
				ok := l.transfer(from, to, 1+r.Intn(30))
				assert.Sometimes(ok, "a transfer went through", nil)
				assert.Sometimes(!ok, "an overdraft was refused", nil)
				assert.Always(l.total() == accounts*opening, "money is neither created nor destroyed", map[string]any{"total": l.total()})
			}
		}(rand.New(rand.NewSource(rand.Int63())))
	}
	wg.Wait()
	assert.Reachable("every teller finished", nil)
	fmt.Fprintf(os.Stderr, "%d transfers journaled, total %d\n", len(l.journal), l.total())
}
