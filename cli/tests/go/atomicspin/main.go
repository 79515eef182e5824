// atomicspin: main spin-waits on an atomic.Bool that a goroutine sets after
// sleeping. On wasm the loop's only callee is sync/atomic's assembly load,
// which has no stack check; unless the load takes the preemption request,
// the sleeper never runs again and main spins forever.
package main

import (
	"fmt"
	"sync/atomic"
	"time"
)

var ready atomic.Bool

func main() {
	go func() {
		time.Sleep(2 * time.Millisecond)
		ready.Store(true)
	}()
	spins := 0
	for !ready.Load() {
		spins++
	}
	fmt.Printf("ready after spinning: %v, %d spins\n", spins > 0, spins)
}
