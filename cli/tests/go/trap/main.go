// trap reads far outside linear memory. Go on wasm has no signal-based nil
// checks for arbitrary addresses, so the load itself traps in the engine,
// which must name this Go function.
package main

import (
	"fmt"
	"unsafe"
)

//go:noinline
func readWild(addr uintptr) int64 {
	return *(*int64)(unsafe.Pointer(addr))
}

func main() {
	fmt.Println(readWild(0xFFFFFFF0))
}
