// Package main builds for linux but not for wasip1: syscall.Statfs is one
// of the calls wasip1 lacks (docs/wasip1.md). The build error must say so.
package main

import (
	"fmt"
	"syscall"
)

func main() {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/", &st); err != nil {
		panic(err)
	}
	fmt.Println(st.Bavail)
}
