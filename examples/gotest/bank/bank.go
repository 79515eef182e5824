// Package bank is an account with a check-then-act race: Withdraw checks the
// balance, records an audit entry (a function call, where the scheduler may
// switch goroutines), then debits. Two withdrawals that both pass the check
// before either debits overdraw the account. `seedfall test` finds it with
// random preemption; ../banksafe is the correct twin.
package bank

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

// record hashes an audit entry: enough calls for a goroutine switch to land here.
func (a *Account) record(amount int) {
	entry := sha256.Sum256([]byte(fmt.Sprintf("withdraw %d", amount)))
	for i := 0; i < 40; i++ {
		entry = sha256.Sum256(entry[:])
	}
	a.mu.Lock()
	a.audit = append(a.audit, entry)
	a.mu.Unlock()
}

// Withdraw takes amount if the balance covers it.
func (a *Account) Withdraw(amount int) bool {
	if a.Balance() < amount {
		return false
	}
	a.record(amount)
	a.mu.Lock()
	a.balance -= amount
	a.mu.Unlock()
	return true
}
