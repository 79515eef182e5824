// Command client is the txnkv example's workload: -clients goroutines, each
// with its own connection, run small transactions over two keys (read a key
// and append to it, read both, append to both) and record each one with
// sim.Txn: the appends and, once the store answers, what every read
// returned, then Committed. A transaction that times out keeps only its
// appends and stays indeterminate. The simulator checks the history after
// the run against the config's "isolation" level.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

var (
	server  = flag.String("server", "store:7000", "the store")
	clients = flag.Int("clients", 4, "concurrent clients")
)

type micro struct {
	read  bool
	key   string
	value int
}

func (m micro) String() string {
	if m.read {
		return "r:" + m.key
	}
	return "a:" + m.key + ":" + strconv.Itoa(m.value)
}

// plan draws a transaction; next numbers the client's appends so that every
// appended value is unique per key.
func plan(id int, next *int) []micro {
	keys := []string{"x", "y"}
	k := keys[rand.Intn(2)]
	other := keys[1-rand.Intn(2)]
	appendTo := func(key string) micro {
		*next++
		return micro{key: key, value: id*1_000_000 + *next}
	}
	switch rand.Intn(4) {
	case 0, 1: // read-modify-write
		return []micro{{read: true, key: k}, appendTo(k)}
	case 2:
		return []micro{{read: true, key: "x"}, {read: true, key: "y"}}
	default:
		return []micro{appendTo(k), {read: true, key: other}}
	}
}

func parseList(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if v, err := strconv.Atoi(f); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func client(id, txns int, wg *sync.WaitGroup) {
	defer wg.Done()
	var c net.Conn
	var in *bufio.Reader
	next := 0
	for n := 0; n < txns; n++ {
		for c == nil {
			var err error
			if c, err = sim.Dial("tcp", *server); err != nil {
				c = nil
				time.Sleep(50 * time.Millisecond)
				continue
			}
			in = bufio.NewReader(c)
		}
		ops := plan(id, &next)
		words := make([]string, len(ops))
		for i, op := range ops {
			words[i] = op.String()
		}
		tx := sim.Txn(id)
		c.SetDeadline(time.Now().Add(time.Second))
		_, err := c.Write([]byte("TXN " + strings.Join(words, " ") + "\n"))
		var line string
		if err == nil {
			line, err = in.ReadString('\n')
		}
		results, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "OK ")
		parts := strings.Split(results, "|")
		if err != nil || !ok || len(parts) != len(ops) {
			for _, op := range ops {
				if !op.read {
					tx.Append(op.key, op.value)
				}
			}
			c.Close()
			c = nil
			continue
		}
		for i, op := range ops {
			if op.read {
				tx.Read(op.key, parseList(parts[i]))
			} else {
				tx.Append(op.key, op.value)
			}
		}
		tx.Committed()
		time.Sleep(time.Duration(rand.Intn(3)) * time.Millisecond)
	}
	if c != nil {
		c.Close()
	}
}

func main() {
	flag.Parse()
	txns := sim.Budget(50)
	time.Sleep(50 * time.Millisecond) // the store listens
	sim.SetupComplete()
	var wg sync.WaitGroup
	for id := 1; id <= *clients; id++ {
		wg.Add(1)
		go client(id, txns, &wg)
	}
	wg.Wait()
	fmt.Println("done")
}
