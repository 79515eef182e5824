// Package ledger is the accounts and transfers both of the example's
// programs check: ./bank in one process, ./service behind HTTP.
//
// The bug (not fixed): a transfer reads both balances, journals the
// transfer (a write that yields, as any I/O does), then writes the
// balances it computed from what it read, so two transfers over one
// account interleaved there lose an update. Fixed holds the lock across
// the whole transfer.
package ledger

import (
	"fmt"
	"sync"
	"time"
)

const (
	Accounts = 5
	Opening  = 100
)

type Ledger struct {
	mu       sync.Mutex
	balances [Accounts]int
	fixed    bool
	jmu      sync.Mutex // the journal's own lock
	journal  []string
}

// New opens every account with Opening.
func New(fixed bool) *Ledger {
	l := &Ledger{fixed: fixed}
	for i := range l.balances {
		l.balances[i] = Opening
	}
	return l
}

// Transfer moves amount from one account to another, refusing overdrafts.
func (l *Ledger) Transfer(from, to, amount int) bool {
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
func (l *Ledger) lock() {
	if !l.fixed {
		l.mu.Lock()
	}
}

func (l *Ledger) unlock() {
	if !l.fixed {
		l.mu.Unlock()
	}
}

// record journals a transfer; the sleep stands for the write's latency.
func (l *Ledger) record(entry string) {
	time.Sleep(time.Millisecond)
	l.jmu.Lock()
	l.journal = append(l.journal, entry)
	l.jmu.Unlock()
}

// Total is the sum of every balance: Accounts*Opening while money is
// neither created nor destroyed.
func (l *Ledger) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := 0
	for _, b := range l.balances {
		sum += b
	}
	return sum
}

// Journaled is how many transfers went through.
func (l *Ledger) Journaled() int {
	l.jmu.Lock()
	defer l.jmu.Unlock()
	return len(l.journal)
}
