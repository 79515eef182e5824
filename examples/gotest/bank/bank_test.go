package bank

import (
	"crypto/sha256"
	"sync"
	"testing"
)

// busy does some work before a withdrawal, so the goroutines overlap.
func busy(n int) {
	var h [32]byte
	for i := 0; i < n; i++ {
		h = sha256.Sum256(h[:])
	}
}

func TestConcurrentWithdrawals(t *testing.T) {
	a := New(100)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			busy(30)
			a.Withdraw(70)
		}()
	}
	wg.Wait()
	if b := a.Balance(); b < 0 {
		t.Fatalf("overdrawn: balance %d after two withdrawals of 70 from 100", b)
	}
}

func TestSingleWithdrawal(t *testing.T) {
	a := New(100)
	if !a.Withdraw(70) || a.Withdraw(70) {
		t.Fatal("a second withdrawal of 70 from 30 went through")
	}
}
