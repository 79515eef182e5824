// Command tickets is the interleave example's shallow race: a box office
// that sells a fixed number of seats, one per BUY request, on :7000.
//
// The sale opens at one instant for every waiting buyer (like a release
// time), so their handlers become runnable together. Each handler checks
// that a seat is left, then writes the buyer's receipt (a few thousand
// counted calls), then takes the seat: a check-then-act window with no lock.
// A preemption inside the window lets a second buyer pass the same check,
// and the box office sells more tickets than it has seats (`sim.Assert`).
// Without preemption each handler runs its window to the end before the
// next one starts, so the bug never shows. `-fixed` holds a mutex over
// check and act.
//
// Outside the simulator:
//
//	go run ./tickets -listen :7000
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

var (
	listen = flag.String("listen", ":7000", "address to serve on")
	seats  = flag.Int("seats", 2, "seats for sale")
	opens  = flag.Duration("opens", 200*time.Millisecond, "when the sale opens, after boot")
	fixed  = flag.Bool("fixed", false, "hold a lock over the check and the sale")
)

type boxOffice struct {
	open    chan struct{}
	lock    sync.Mutex
	seats   int
	sold    int
	holders []string
}

// receipt is the slow part of a sale: a printable code chained over the
// buyer's name, enough work to span many preemption slices' worth of calls.
func receipt(buyer string) string {
	sum := sha256.Sum256([]byte(buyer))
	for range 64 {
		sum = sha256.Sum256(sum[:])
	}
	return hex.EncodeToString(sum[:8])
}

func (b *boxOffice) buy(buyer string) string {
	<-b.open
	if *fixed {
		b.lock.Lock()
		defer b.lock.Unlock()
	}
	if b.sold >= b.seats {
		return "SOLD-OUT"
	}
	code := receipt(buyer)
	b.sold++
	b.holders = append(b.holders, buyer)
	if b.sold > b.seats {
		fmt.Fprintf(os.Stderr, "tickets: %d sold of %d seats, to %s\n", b.sold, b.seats, strings.Join(b.holders, ", "))
	}
	sim.Assert(b.sold <= b.seats, "sold more tickets than seats")
	return "TICKET " + code
}

func serve(conn net.Conn, b *boxOffice) {
	defer conn.Close()
	in := bufio.NewScanner(conn)
	for in.Scan() {
		buyer, ok := strings.CutPrefix(in.Text(), "BUY ")
		answer := "ERR expected BUY <name>"
		if ok {
			answer = b.buy(buyer)
		}
		if _, err := fmt.Fprintln(conn, answer); err != nil {
			return
		}
	}
}

func main() {
	flag.Parse()
	b := &boxOffice{open: make(chan struct{}), seats: *seats}
	time.AfterFunc(*opens, func() { close(b.open) })
	ln, err := sim.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tickets:", err)
		os.Exit(1)
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tickets:", err)
			os.Exit(1)
		}
		go serve(conn, b)
	}
}
