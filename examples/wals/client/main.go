// Command client is a workload of the wals example, kvlog's client with one
// change: a PUT that was not acknowledged is sent again with another value,
// of another length. kvlog's client sends k<i> the same value on every
// attempt, so the entry a crash tore is always rewritten with the same bytes
// and at least as many; this one writes, about half the time, a shorter entry
// where a torn one was, which is what leaves stale bytes behind in a log
// that skips a torn tail without truncating it (tidwall.pr22.json).
//
// For each i it sends "PUT k<i> <value(i, attempt)>" until the answer is OK
// and records the value of the attempt acknowledged: a later acknowledged
// write of the same key supersedes an earlier unacknowledged one, whether
// that one became durable or not. After every reconnect, every 20 PUTs and
// at the end it reads back every acknowledged key; any other answer than
// "VAL <acknowledged value>" fails the run with
// `acknowledged entry <i> lost: server now answers "<answer>"`.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"seedfall.dev/sdk/sim"
)

var (
	serverAddr  = flag.String("server", "server:7000", "address of the wals server")
	ops         = flag.Int("ops", 200, "PUTs to make (capped by sim.Budget)")
	interval    = flag.Duration("interval", 10*time.Millisecond, "pause between PUTs")
	checkEvery  = flag.Int("check-every", 20, "read back every acknowledged key after this many PUTs")
	reqTimeout  = flag.Duration("timeout", 500*time.Millisecond, "deadline of one request")
	redialEvery = flag.Duration("redial", 20*time.Millisecond, "pause between dial attempts")
	giveUp      = flag.Duration("give-up", 30*time.Second, "exit 1 after this long without an answer from the server")
)

func main() {
	flag.Parse()
	n := sim.Budget(*ops)
	c := &client{addr: *serverAddr, lastAnswer: time.Now()}

	var acked []int
	c.values = map[int]string{}
	for i := 1; i <= n; i++ {
		c.values[i] = c.put(i)
		acked = append(acked, i)
		if c.mustVerify || (*checkEvery > 0 && i%*checkEvery == 0) {
			c.verify(acked)
		}
		time.Sleep(*interval)
	}
	c.verify(acked)
	if c.conn != nil {
		c.conn.Close()
	}

	sim.Sometimes(c.reconnects > 0, "client reconnected to the server")
	sim.Sometimes(c.verifiedAfterReconnect, "acknowledged writes verified after a reconnect")
	fmt.Fprintf(os.Stderr, "wals client: %d reconnects\n", c.reconnects)
	fmt.Printf("wals client: %d acknowledged writes verified\n", len(acked))
}

func key(i int) string { return "k" + strconv.Itoa(i) }

// value is k<i>'s value at the given attempt: "v<i>.<attempt>-" and 1 to 48
// characters of a hash of both, so that attempts differ in length.
func value(i, attempt int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "wals %d %d", i, attempt)
	sum := h.Sum32()
	pad := strings.Repeat(fmt.Sprintf("%08x", sum), 6)[:1+sum%48]
	return fmt.Sprintf("v%d.%d-%s", i, attempt, pad)
}

type client struct {
	addr       string
	conn       net.Conn
	r          *bufio.Reader
	connected  bool           // a connection has worked once
	reconnects int            // dials after the first
	lastAnswer time.Time      // last answer from the server (or start)
	values     map[int]string // the acknowledged value of each key

	// mustVerify is set by a reconnect: the server may have crashed and
	// recovered since the acknowledged keys were last read back.
	mustVerify             bool
	verifiedAfterReconnect bool
}

// put writes k<i> until the server acknowledges it, a new value on each
// attempt, and returns the value acknowledged.
func (c *client) put(i int) string {
	attempt := 0
	var v string
	reply := c.call(func() string {
		attempt++
		v = value(i, attempt)
		return "PUT " + key(i) + " " + v
	})
	if reply != "OK" {
		// The server answers ERR only to requests it cannot parse.
		fmt.Fprintf(os.Stderr, "wals client: PUT %s: unexpected answer %q\n", key(i), reply)
		sim.Fail("server answers PUT with OK")
		os.Exit(1)
	}
	return v
}

// verify reads back every acknowledged key, again from the start if the
// connection is lost on the way.
func (c *client) verify(acked []int) {
	for {
		reconnected := c.mustVerify
		c.mustVerify = false
		for _, i := range acked {
			reply := c.call(func() string { return "GET " + key(i) })
			if reply != "VAL "+c.values[i] {
				msg := fmt.Sprintf("acknowledged entry %d lost: server now answers %q", i, strings.TrimSpace(reply))
				fmt.Fprintf(os.Stderr, "wals client: %s (expected %q)\n", msg, "VAL "+c.values[i])
				sim.Fail(msg)
				os.Exit(1)
			}
		}
		if !c.mustVerify {
			if reconnected {
				c.verifiedAfterReconnect = true
			}
			return
		}
	}
}

// call sends the request req makes and returns the answer line (without its
// newline). On any error it closes the connection, dials again and sends the
// request req makes then; it exits with status 1 when the server has not
// answered for -give-up.
func (c *client) call(next func() string) string {
	for {
		if c.conn == nil {
			c.dial()
		}
		req := next()
		c.conn.SetDeadline(time.Now().Add(*reqTimeout))
		_, err := io.WriteString(c.conn, req+"\n")
		var line string
		if err == nil {
			line, err = c.r.ReadString('\n')
		}
		if err == nil {
			c.lastAnswer = time.Now()
			return strings.TrimSuffix(line, "\n")
		}
		fmt.Fprintf(os.Stderr, "wals client: %s: %v\n", strings.Fields(req)[0], err)
		c.conn.Close()
		c.conn = nil
		c.checkGiveUp(err)
	}
}

// dial connects to the server, retrying every -redial.
func (c *client) dial() {
	for {
		conn, err := sim.Dial("tcp", c.addr)
		if err == nil {
			c.conn, c.r = conn, bufio.NewReader(conn)
			if c.connected {
				c.reconnects++
				c.mustVerify = true
			} else {
				c.connected = true
				sim.SetupComplete()
			}
			return
		}
		c.checkGiveUp(err)
		time.Sleep(*redialEvery)
	}
}

func (c *client) checkGiveUp(err error) {
	if waited := time.Since(c.lastAnswer); waited > *giveUp {
		fmt.Fprintf(os.Stderr, "wals client: giving up: no answer from %s for %v (last error: %v)\n", c.addr, waited.Round(time.Millisecond), err)
		os.Exit(1)
	}
}
