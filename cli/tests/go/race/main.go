// race is a check-then-act bug: main checks the balance, works for a while,
// then withdraws; a second goroutine does a long stretch of work and then
// does the same. The balance goes negative only if main is preempted inside
// its window and the other goroutine then runs its whole stretch and its
// withdrawal before main resumes — exactly one well-placed context switch.
package main

import (
	"fmt"
	"os"
	"sync"
)

var balance = 100
var sink uint64

//go:noinline
func work(x uint64) uint64 {
	var buf [2]uint64
	buf[x%2] = x
	return x*2862933555777941757 + 3037000493 + buf[0]
}

func stretch(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = work(x)
	}
	sink = x
}

func withdraw(amount, window int) {
	if balance >= amount {
		stretch(window)
		balance -= amount
	}
}

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		stretch(330_000)
		withdraw(100, 0)
	}()
	withdraw(100, 300_000)
	wg.Wait()
	if balance < 0 {
		fmt.Println("BUG: balance went negative:", balance)
		os.Exit(1)
	}
	fmt.Println("ok: balance", balance)
}
