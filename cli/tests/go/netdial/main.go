// netdial checks, under seedfall's net_overlay, what a plain Go program sees
// when it dials across the simulated network (cli/tests/net_overlay.rs):
// -serve listens on :7001 forever (node "server"); the workload resolves the
// server's name, connects and sees its simulated IP, and prints the errors
// for a port nobody listens on, an IP that names no node and an unknown name.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

func main() {
	serve := flag.Bool("serve", false, "listen on :7001 and accept forever")
	flag.Parse()
	if *serve {
		ln, err := net.Listen("tcp", ":7001")
		if err != nil {
			panic(err)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(c, "hello %s\n", c.RemoteAddr().(*net.TCPAddr).IP)
			c.Close()
		}
	}
	time.Sleep(10 * time.Millisecond) // the server is listening by then
	addrs, err := net.LookupHost("server")
	fmt.Println("server resolves to", addrs, err)
	c, err := net.Dial("tcp", "server:7001")
	if err != nil {
		fmt.Println("dial server:7001:", err)
		os.Exit(1)
	}
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	fmt.Printf("server says %s", buf[:n])
	fmt.Println("remote", c.RemoteAddr(), "local ip", c.LocalAddr().(*net.TCPAddr).IP)
	c.Close()
	_, err = net.Dial("tcp", "server:7000")
	fmt.Println("no listener refused:", errors.Is(err, syscall.ECONNREFUSED))
	_, err = net.Dial("tcp", "10.0.0.9:7000")
	fmt.Println("unknown ip unreachable:", errors.Is(err, syscall.EHOSTUNREACH))
	_, err = net.Dial("tcp", "nosuch:7000")
	var dnsErr *net.DNSError
	fmt.Println("unknown name not found:", errors.As(err, &dnsErr) && dnsErr.IsNotFound)
}
