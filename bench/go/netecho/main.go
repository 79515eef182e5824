// netecho is bench/net_overlay.sh's service: a line echo server (-serve) and
// a client that makes 20 connections of 20 round trips each. -api picks the
// socket calls: "sim" (sim.Listen/sim.Dial, the SDK) or "net"
// (net.Listen/net.Dial, which need the config's net_overlay). Everything
// else is the same code, so the two configs measure the overlay alone.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"

	"seedfall.dev/sdk/sim"
)

func main() {
	api := flag.String("api", "sim", "sim or net")
	serve := flag.Bool("serve", false, "run the server")
	flag.Parse()
	listen, dial := sim.Listen, sim.Dial
	if *api == "net" {
		listen, dial = net.Listen, net.Dial
	}
	if *serve {
		ln, err := listen("tcp", ":7000")
		if err != nil {
			panic(err)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				panic(err)
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}
	for i := 0; i < 20; i++ {
		c, err := dial("tcp", "server:7000")
		for err != nil { // the server may not listen yet
			c, err = dial("tcp", "server:7000")
		}
		r := bufio.NewReader(c)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(c, "ping %d %d\n", i, j)
			if _, err := r.ReadString('\n'); err != nil {
				fmt.Fprintln(os.Stderr, "read:", err)
				os.Exit(1)
			}
		}
		c.Close()
	}
}
