// hello: not a CPU benchmark; the fixed cost of starting a Go program under
// each runner (process start, loading code, Go runtime init). Not in the geomean.
package main

import "fmt"

func main() {
	fmt.Println("hello: checksum=0")
}
