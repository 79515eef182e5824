// Command client is the replkv example's workload: -clients goroutines, each
// with its own connection to the primary, put and get a few keys in random
// order and record every operation in the history (sim.Put, sim.Get) with
// how it completed. It checks nothing itself: the simulator checks the
// history after the run against the config's "linearizable": "kv". A request
// that times out or loses its connection stays indeterminate (it may or may
// not have taken effect); the client then reconnects.
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
	primary = flag.String("primary", "primary:7000", "the primary")
	clients = flag.Int("clients", 3, "concurrent clients")
	keys    = flag.Int("keys", 2, "how many keys")
	timeout = flag.Duration("timeout", 500*time.Millisecond, "a request's deadline")
)

type conn struct {
	c  net.Conn
	in *bufio.Reader
}

func dial() *conn {
	for {
		c, err := sim.Dial("tcp", *primary)
		if err == nil {
			return &conn{c: c, in: bufio.NewReader(c)}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// call sends one request line and reads the answer; an error leaves the
// connection unusable.
func (c *conn) call(request string) (string, error) {
	c.c.SetDeadline(time.Now().Add(*timeout))
	if _, err := c.c.Write([]byte(request + "\n")); err != nil {
		return "", err
	}
	line, err := c.in.ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

func client(id, ops int, wg *sync.WaitGroup) {
	defer wg.Done()
	c := dial()
	for n := 0; n < ops; n++ {
		key := "k" + strconv.Itoa(rand.Intn(*keys))
		var answer string
		var err error
		if rand.Intn(2) == 0 {
			value := fmt.Sprintf("%d.%d", id, n)
			op := sim.Put(id, key, value)
			if answer, err = c.call("PUT " + key + " " + value); err == nil && answer == "OK" {
				op.Ok()
			}
		} else {
			op := sim.Get(id, key)
			if answer, err = c.call("GET " + key); err == nil {
				if v, ok := strings.CutPrefix(answer, "VAL "); ok {
					op.Returned(v)
				} else if answer == "MISSING" {
					op.Missing()
				}
			}
		}
		if err != nil {
			c.c.Close()
			c = dial()
		}
		time.Sleep(time.Duration(rand.Intn(10)) * time.Millisecond)
	}
	c.c.Close()
}

func main() {
	flag.Parse()
	ops := sim.Budget(60)
	time.Sleep(100 * time.Millisecond) // the servers listen
	sim.SetupComplete()
	var wg sync.WaitGroup
	for id := 1; id <= *clients; id++ {
		wg.Add(1)
		go client(id, ops, &wg)
	}
	wg.Wait()
	fmt.Println("done")
}
