// spin: two goroutines spin forever calling a small function that has a stack
// frame; main sleeps 5ms and must still get to print and exit. Without
// preemption the spinners starve main and its timer forever.
package main

import (
	"fmt"
	"time"
)

var sink [2]uint64

//go:noinline
func step(x uint64) uint64 {
	var buf [4]uint64 // a frame, so the function has a stack check
	buf[x%4] = x
	return x*6364136223846793005 + 1442695040888963407 + buf[(x+1)%4]
}

func spin(i int) {
	x := uint64(i)
	for {
		x = step(x)
		sink[i] = x
	}
}

func main() {
	go spin(0)
	go spin(1)
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	fmt.Printf("main woke after %v with spinners at %x %x\n", time.Since(start) >= 5*time.Millisecond, sink[0]%4096, sink[1]%4096)
}
