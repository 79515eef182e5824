// Command spin is a service that waits for its own background goroutine by
// spinning on a plain flag: `for !ready {}` has no function call in it (and
// the compiler may keep the flag in a register), so on wasip1, where Go
// switches goroutines only at function entries, the goroutine that would set
// the flag never runs. With loop counters seedfall parks the spinning node
// like any other and fails the run on liveness, deterministically; without
// them only the real-time watchdog can stop it.
package main

import (
	"fmt"
	"time"
)

var ready bool

func main() {
	go func() {
		time.Sleep(10 * time.Millisecond)
		ready = true
	}()
	for !ready {
	}
	fmt.Println("spin: ready")
	select {}
}
