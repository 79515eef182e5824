// A two-goroutine deadlock: each goroutine holds one lock and waits for the
// other's. `seedfall test` must show both goroutines' stacks.
package deadlock

import (
	"sync"
	"testing"
)

var first, second sync.Mutex

func lockFirstThenSecond(ready, other chan struct{}) {
	first.Lock()
	close(ready)
	<-other
	second.Lock()
}

func lockSecondThenFirst(ready, other chan struct{}) {
	second.Lock()
	close(ready)
	<-other
	first.Lock()
}

func TestLockOrder(t *testing.T) {
	a, b := make(chan struct{}), make(chan struct{})
	done := make(chan struct{}, 2)
	go func() { lockFirstThenSecond(a, b); done <- struct{}{} }()
	go func() { lockSecondThenFirst(b, a); done <- struct{}{} }()
	<-done
	<-done
}
