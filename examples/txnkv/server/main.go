// Command server is the txnkv example's store: lists of integers by key,
// changed by transactions of reads and appends (Elle's list-append model).
// A request is one line, "TXN r:x a:y:5 r:y"; the answer is "OK" and, per
// micro-operation, what it returned ("OK 1,2|" + "|" + "5"): a read the whole
// list, an append nothing.
//
// Each micro-operation costs a millisecond of storage latency. With -lock op
// (the bug) the store's mutex is taken per micro-operation, so two
// transactions that read a key and then append to it interleave: both read
// the same list and both append, a lost update. With -lock txn the mutex is
// held across the whole transaction, which makes every history serializable.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

var lock = flag.String("lock", "txn", "how long the store's lock is held: txn (the whole transaction) or op (each micro-operation)")

type store struct {
	mu    sync.Mutex
	lists map[string][]int
}

// apply runs one micro-operation ("r:x" or "a:x:5") and returns what it read.
func (s *store) apply(op string) (string, error) {
	time.Sleep(time.Millisecond) // the storage's latency
	parts := strings.Split(op, ":")
	switch {
	case len(parts) == 2 && parts[0] == "r":
		var out []string
		for _, v := range s.lists[parts[1]] {
			out = append(out, strconv.Itoa(v))
		}
		return strings.Join(out, ","), nil
	case len(parts) == 3 && parts[0] == "a":
		v, err := strconv.Atoi(parts[2])
		if err != nil {
			return "", err
		}
		s.lists[parts[1]] = append(s.lists[parts[1]], v)
		return "", nil
	}
	return "", fmt.Errorf("bad micro-operation %q", op)
}

func (s *store) txn(ops []string) (string, error) {
	if *lock == "txn" {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	results := make([]string, len(ops))
	for i, op := range ops {
		if *lock == "op" {
			s.mu.Lock()
		}
		r, err := s.apply(op)
		if *lock == "op" {
			s.mu.Unlock()
		}
		if err != nil {
			return "", err
		}
		results[i] = r
	}
	return strings.Join(results, "|"), nil
}

func main() {
	flag.Parse()
	s := &store{lists: map[string][]int{}}
	l, err := sim.Listen("tcp", ":7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "accept:", err)
			os.Exit(1)
		}
		go serve(c, s)
	}
}

func serve(c net.Conn, s *store) {
	defer c.Close()
	in := bufio.NewReader(c)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		fields := strings.Fields(line)
		answer := "ERR expected TXN"
		if len(fields) > 1 && fields[0] == "TXN" {
			if results, err := s.txn(fields[1:]); err != nil {
				answer = "ERR " + err.Error()
			} else {
				answer = "OK " + results
			}
		}
		if _, err := c.Write([]byte(answer + "\n")); err != nil {
			return
		}
	}
}
