// A program for host/tests/gosym.rs: its line numbers are asserted there.
package main

import "fmt"

type Bank struct{ balance int }

//go:noinline
func (b *Bank) Transfer(amount int) int {
	b.balance += amount
	return b.balance
}

func main() {
	b := &Bank{}
	fmt.Printf("%q %d\n", "balance", b.Transfer(3))
}
