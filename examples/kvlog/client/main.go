// Command client is kvlog's workload: it writes keys k1..kN to the server
// and checks that every write the server acknowledged stays readable,
// whatever crashes, torn writes and failed fsyncs the simulator injects.
//
// For each i it sends "PUT k<i> <value(i)>" until the answer is OK (a PUT
// without an answer is not acknowledged; sending it again is harmless, as
// the value of k<i> never changes) and records i as acknowledged. After
// every reconnect (the server may have crashed and recovered), every 20
// PUTs, and at the end, it reads back every acknowledged key; any answer
// other than "VAL <value(i)>" fails the run with
// `acknowledged entry <i> lost: server now answers "<answer>"`.
//
// Outside the simulator:
//
//	go run ./client -server localhost:7000
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
	serverAddr  = flag.String("server", "server:7000", "address of the kvlog server")
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
	for i := 1; i <= n; i++ {
		c.put(i)
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
	fmt.Fprintf(os.Stderr, "kvlog client: %d reconnects\n", c.reconnects)
	fmt.Printf("kvlog client: %d acknowledged writes verified\n", len(acked))
}

func key(i int) string { return "k" + strconv.Itoa(i) }

// value is k<i>'s value: "v<i>-" and 8 hex digits of a hash of i.
func value(i int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "kvlog %d", i)
	return fmt.Sprintf("v%d-%08x", i, h.Sum32())
}

type client struct {
	addr       string
	conn       net.Conn
	r          *bufio.Reader
	connected  bool      // a connection has worked once
	reconnects int       // dials after the first
	lastAnswer time.Time // last answer from the server (or start)

	// mustVerify is set by a reconnect: the server may have crashed and
	// recovered since the acknowledged keys were last read back.
	mustVerify             bool
	verifiedAfterReconnect bool
}

// put writes k<i> until the server acknowledges it.
func (c *client) put(i int) {
	if reply := c.call("PUT " + key(i) + " " + value(i)); reply != "OK" {
		// The server answers ERR only to requests it cannot parse.
		fmt.Fprintf(os.Stderr, "kvlog client: PUT %s: unexpected answer %q\n", key(i), reply)
		sim.Fail("server answers PUT with OK")
		os.Exit(1)
	}
}

// verify reads back every acknowledged key, again from the start if the
// connection is lost on the way.
func (c *client) verify(acked []int) {
	for {
		reconnected := c.mustVerify
		c.mustVerify = false
		for _, i := range acked {
			reply := c.call("GET " + key(i))
			if reply != "VAL "+value(i) {
				msg := fmt.Sprintf("acknowledged entry %d lost: server now answers %q", i, strings.TrimSpace(reply))
				fmt.Fprintf(os.Stderr, "kvlog client: %s (expected %q)\n", msg, "VAL "+value(i))
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

// call sends one request and returns the answer line (without its newline).
// On any error it closes the connection, dials again and resends; it exits
// with status 1 when the server has not answered for -give-up.
func (c *client) call(req string) string {
	for {
		if c.conn == nil {
			c.dial()
		}
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
		fmt.Fprintf(os.Stderr, "kvlog client: %s: %v\n", strings.Fields(req)[0], err)
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
		fmt.Fprintf(os.Stderr, "kvlog client: giving up: no answer from %s for %v (last error: %v)\n", c.addr, waited.Round(time.Millisecond), err)
		os.Exit(1)
	}
}
