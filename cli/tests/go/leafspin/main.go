// leafspin: goroutines loop forever calling a frameless helper, a leaf the Go
// compiler gives no stack check, so no function prologue in their loops reads a
// preemption request. main sleeps and must still get to print and exit: the
// instrumentation's entry check in mix is what lets the request take effect.
package main

import (
	"fmt"
	"time"
)

var sink [3]uint64

//go:noinline
func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

func spin(i int) {
	x := uint64(i)
	for {
		x = mix(x)
		sink[i] = x
	}
}

func main() {
	for i := range sink {
		go spin(i)
	}
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	fmt.Printf("main woke after %v with spinners at %x %x %x\n", time.Since(start) >= 5*time.Millisecond,
		sink[0]%4096, sink[1]%4096, sink[2]%4096)
}
