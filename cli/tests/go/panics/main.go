// panics panics with a message; Go's runtime prints it and exits with code 2.
package main

func main() {
	panic("something went badly wrong")
}
