// busyloop spins in a loop that makes no calls at all: Go's runtime cannot
// preempt it on wasm. With loop counters it is detected as a busy loop; without
// them only the real-time watchdog can stop it.
package main

import (
	"fmt"
	"time"
)

var counter uint64

func main() {
	go func() {
		for {
			counter++
		}
	}()
	time.Sleep(time.Millisecond)
	fmt.Println("unreachable in practice:", counter)
}
