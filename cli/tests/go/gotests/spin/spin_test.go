// Tests that never end: one spins without a call (only the real-time
// watchdog can stop it), one spins calling a function (the test's virtual
// timeout stops it), one passes. Each ends in its verdict and the sweep goes on.
package spin

import "testing"

var sink int

//go:noinline
func step(i int) int { return i*7 + 1 }

func TestSpinsWithoutCalls(t *testing.T) {
	for {
		sink++
	}
}

func TestSpinsWithCalls(t *testing.T) {
	for i := 0; ; i++ {
		sink = step(i)
	}
}

func TestPasses(t *testing.T) {
	if step(1) != 8 {
		t.Fatal("arithmetic")
	}
}
