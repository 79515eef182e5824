// Package banksafe is ../bank done right: the check and the debit happen
// under one lock, so no goroutine switch between them can overdraw the
// account. `seedfall test` passes it on every seed.
package banksafe

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

type Account struct {
	mu      sync.Mutex
	balance int
	audit   [][32]byte
}

func New(balance int) *Account { return &Account{balance: balance} }

func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// entry hashes an audit entry (the same work as ../bank's, outside the lock).
func entry(amount int) [32]byte {
	e := sha256.Sum256([]byte(fmt.Sprintf("withdraw %d", amount)))
	for i := 0; i < 40; i++ {
		e = sha256.Sum256(e[:])
	}
	return e
}

// Withdraw takes amount if the balance covers it.
func (a *Account) Withdraw(amount int) bool {
	e := entry(amount)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.balance < amount {
		return false
	}
	a.audit = append(a.audit, e)
	a.balance -= amount
	return true
}
