// Package main is a TCP server (-mode server) and its client (-mode client)
// on package net alone, with no seedfall import: they meet only when the
// config sets "net_overlay": true. Without it, net on wasip1 is Go's
// in-process fake network and the server deadlocks in Accept.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	mode := flag.String("mode", "", "server or client")
	flag.Parse()
	switch *mode {
	case "server":
		ln, err := net.Listen("tcp", ":7000")
		if err != nil {
			panic(err)
		}
		for {
			conn, err := ln.Accept()
			if err != nil {
				panic(err)
			}
			fmt.Fprintln(conn, "hello")
			conn.Close()
		}
	case "client":
		for try := 0; try < 20; try++ {
			conn, err := net.Dial("tcp", "server:7000")
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			fmt.Print(line)
			return
		}
		fmt.Fprintln(os.Stderr, "never connected")
		os.Exit(1)
	}
}
