// memgrow: allocation heavy — binary trees (GC churn) plus a heap that grows to ~200 MB of live slices.
package main

import "fmt"

type node struct{ left, right *node }

func build(depth int) *node {
	if depth == 0 {
		return &node{}
	}
	return &node{build(depth - 1), build(depth - 1)}
}

func (n *node) count() int {
	if n.left == nil {
		return 1
	}
	return 1 + n.left.count() + n.right.count()
}

func main() {
	total := 0
	long := build(16)
	for i := 0; i < 60; i++ {
		total += build(14).count()
	}
	var keep [][]byte
	for i := 0; i < 3200; i++ {
		b := make([]byte, 64<<10)
		b[i%len(b)] = byte(i)
		keep = append(keep, b)
	}
	sum := 0
	for i, b := range keep {
		sum += int(b[i%len(b)])
	}
	fmt.Printf("memgrow: checksum=%d trees=%d sum=%d\n", long.count(), total, sum)
}
