// udppair exchanges UDP datagrams across seedfall's simulated network with
// plain `net` calls (cli/tests/net_overlay.rs): -serve echoes every datagram
// that reaches :9000 back to its sender (ListenUDP, ReadFromUDP,
// WriteToUDP); the workload dials the server by name (DialUDP), sends 200
// numbered datagrams 100µs apart and reads echoes until 200ms pass in
// silence, then prints what came back: how many, how many numbers never
// did, how many copies came more than once, and how many arrived after a
// higher number. Under udp_loss, udp_dup and the network's per-datagram
// latency each count is above zero for most seeds.
//
// With -every the workload also fails (exit 1) when any number never came
// back: a check that one lost datagram breaks, for shrinking datagram faults.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

const count = 200

func main() {
	serve := flag.Bool("serve", false, "echo datagrams on :9000 forever")
	every := flag.Bool("every", false, "fail unless every datagram comes back")
	flag.Parse()
	if *serve {
		echo()
		return
	}
	time.Sleep(10 * time.Millisecond) // the server is bound by then
	raddr, err := net.ResolveUDPAddr("udp", "server:9000")
	check(err)
	c, err := net.DialUDP("udp", nil, raddr)
	check(err)
	fmt.Println("dialed", c.RemoteAddr(), "from", c.LocalAddr().(*net.UDPAddr).IP)
	go func() {
		for i := 0; i < count; i++ {
			_, err := c.Write([]byte(strconv.Itoa(i)))
			check(err)
			time.Sleep(100 * time.Microsecond)
		}
	}()
	var got [count]int
	received, late, highest := 0, 0, -1
	buf := make([]byte, 64)
	for {
		check(c.SetReadDeadline(time.Now().Add(200 * time.Millisecond)))
		n, err := c.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		check(err)
		i, err := strconv.Atoi(string(buf[:n]))
		check(err)
		received++
		got[i]++
		if i < highest {
			late++
		}
		highest = max(highest, i)
	}
	missing, again := 0, 0
	for _, k := range got {
		if k == 0 {
			missing++
		}
		again += max(k-1, 0)
	}
	fmt.Printf("received %d of %d: %d missing, %d duplicated, %d out of order\n", received, count, missing, again, late)
	if *every && missing > 0 {
		fmt.Fprintln(os.Stderr, "udppair: a datagram never came back")
		os.Exit(1)
	}
}

// echo answers every datagram with its own bytes and says where the first
// one came from (the client's simulated IP).
func echo() {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{Port: 9000})
	check(err)
	buf := make([]byte, 64)
	for first := true; ; first = false {
		n, from, err := conn.ReadFromUDP(buf)
		check(err)
		if first {
			fmt.Println("first datagram from", from.IP)
		}
		_, err = conn.WriteToUDP(buf[:n], from)
		check(err)
	}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
