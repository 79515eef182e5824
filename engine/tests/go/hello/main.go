package main

import "fmt"

func main() {
	fmt.Println("hello from Go on seedfall")
}
