// hello: the smallest realistic Go program, the floor of every Go binary
// (runtime, GC, scheduler, fmt).
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
