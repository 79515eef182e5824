// Command client is checksumkv's workload: it writes known values to a few
// keys, reads keys back at random, and fails the run the moment the server
// serves a value that was never written to that key:
//
//	store served a value never written: GET k3
//
// (the value it served is on stderr, which `seedfall replay` shows).
//
// Every value it sends is remembered before the PUT goes out (a PUT whose
// answer is lost may still have been applied), so a value the server
// returns is either one of those or corrupt. NOTFOUND and ERR are not
// failures: a store may lose what a crash cut off or refuse a record it
// cannot trust; it must not make data up. Durability is not what this
// workload checks (the kvlog example does that).
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
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"seedfall.dev/sdk/sim"
)

var (
	serverAddr  = flag.String("server", "server:7000", "address of the checksumkv server")
	ops         = flag.Int("ops", 300, "operations (capped by sim.Budget)")
	keys        = flag.Int("keys", 8, "how many keys")
	writes      = flag.Float64("writes", 0.4, "the share of operations that are PUTs")
	interval    = flag.Duration("interval", 10*time.Millisecond, "pause between operations")
	reqTimeout  = flag.Duration("timeout", 500*time.Millisecond, "deadline of one request")
	redialEvery = flag.Duration("redial", 20*time.Millisecond, "pause between dial attempts")
	giveUp      = flag.Duration("give-up", 30*time.Second, "exit 1 after this long without an answer from the server")
)

func main() {
	flag.Parse()
	n := sim.Budget(*ops)
	c := &client{addr: *serverAddr, lastAnswer: time.Now()}
	written := map[string]map[string]bool{} // key -> every value sent for it
	version := 0
	var served, notFound, refused int
	for i := 0; i < n; i++ {
		key := "k" + strconv.Itoa(1+rand.IntN(*keys))
		if len(written[key]) == 0 || rand.Float64() < *writes {
			version++
			v := value(key, version)
			if written[key] == nil {
				written[key] = map[string]bool{}
			}
			written[key][v] = true
			if reply := c.call("PUT " + key + " " + v); reply != "OK" {
				fmt.Fprintf(os.Stderr, "checksumkv client: PUT %s: unexpected answer %q\n", key, reply)
				sim.Fail("server answers PUT with OK")
				os.Exit(1)
			}
		} else {
			reply := c.call("GET " + key)
			switch {
			case strings.HasPrefix(reply, "VAL "):
				v, err := strconv.Unquote(strings.TrimPrefix(reply, "VAL "))
				if err != nil || !written[key][v] {
					if err != nil {
						v = strings.TrimPrefix(reply, "VAL ")
					}
					// The value goes to stderr (replay shows it); the failure's
					// message stays the same for every seed but the key, so a
					// sweep counts one finding.
					fmt.Fprintf(os.Stderr, "checksumkv client: GET %s served %q, never written to %s (%d values were)\n", key, v, key, len(written[key]))
					sim.Fail(fmt.Sprintf("store served a value never written: GET %s", key))
					os.Exit(1)
				}
				served++
			case reply == "NOTFOUND":
				notFound++
			case strings.HasPrefix(reply, "ERR "):
				refused++
			default:
				fmt.Fprintf(os.Stderr, "checksumkv client: GET %s: unexpected answer %q\n", key, reply)
				sim.Fail("server answers GET with VAL, NOTFOUND or ERR")
				os.Exit(1)
			}
		}
		time.Sleep(*interval)
	}
	if c.conn != nil {
		c.conn.Close()
	}
	fmt.Printf("checksumkv client: %d values served, all written; %d not found, %d refused, %d reconnects\n", served, notFound, refused, c.reconnects)
}

// value is the version-th value, for key: "k3.v7." and 8 hex digits of a
// hash of both.
func value(key string, version int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "checksumkv %s %d", key, version)
	return fmt.Sprintf("%s.v%d.%08x", key, version, h.Sum32())
}

type client struct {
	addr       string
	conn       net.Conn
	r          *bufio.Reader
	connected  bool
	reconnects int
	lastAnswer time.Time
}

// call sends one request and returns the answer line. On any error it
// dials again and resends (a PUT twice is harmless: the second record is
// the same value).
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
		c.conn.Close()
		c.conn = nil
		c.checkGiveUp(err)
	}
}

func (c *client) dial() {
	for {
		conn, err := sim.Dial("tcp", c.addr)
		if err == nil {
			c.conn, c.r = conn, bufio.NewReader(conn)
			if c.connected {
				c.reconnects++
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
		fmt.Fprintf(os.Stderr, "checksumkv client: giving up: no answer from %s for %v (last error: %v)\n", c.addr, waited.Round(time.Millisecond), err)
		os.Exit(1)
	}
}
