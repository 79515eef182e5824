// Command pingpong is the smallest seedfall network test. The node named
// "server" listens on :7000 and answers each line "ping N" with "pong N"; any
// other node (the workload "client") dials server:7000, plays Budget(20)
// rounds, checks every answer and exits 0.
//
// The role follows the node name unless -role says otherwise, so one package
// serves both entries of seedfall.json. Outside the simulator:
//
//	go run . -role server -listen localhost:7000 &
//	go run . -role client -addr localhost:7000
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"strings"
	"time"

	"seedfall.dev/sdk/sim"
)

func main() {
	role := flag.String("role", "", `"server" or "client" (default: "server" on the node named server, else "client")`)
	listen := flag.String("listen", ":7000", "server: address to listen on")
	addr := flag.String("addr", "server:7000", "client: address to dial")
	rounds := flag.Int("n", 20, "client: round trips (capped by sim.Budget)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("pingpong: ")

	if *role == "" {
		*role = "client"
		if sim.Node() == "server" {
			*role = "server"
		}
	}
	switch *role {
	case "server":
		l, err := sim.Listen("tcp", *listen)
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("%s#%d listening on %v", sim.Node(), sim.Incarnation(), l.Addr())
		if err := serve(l); err != nil {
			log.Fatal(err)
		}
	case "client":
		if err := client(*addr, sim.Budget(*rounds)); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("unknown -role %q", *role)
	}
}

// serve answers pings on every connection until l is closed.
func serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		go handle(c)
	}
}

func handle(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "ping ")
		sim.Always(ok, "server receives only pings")
		if !ok {
			return
		}
		if _, err := fmt.Fprintf(c, "pong %s\n", n); err != nil {
			return
		}
	}
}

// client plays rounds of ping/pong with the server at addr.
func client(addr string, rounds int) error {
	c, err := dialRetry(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	sim.Reachable("client connected")
	sim.SetupComplete()
	log.Printf("connected %v -> %v", c.LocalAddr(), c.RemoteAddr())

	r := bufio.NewReader(c)
	for i := 0; i < rounds; i++ {
		if _, err := fmt.Fprintf(c, "ping %d\n", i); err != nil {
			return err
		}
		got, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("round %d: %w", i, err)
		}
		want := fmt.Sprintf("pong %d\n", i)
		sim.Assert(got == want, "pong answers the ping")
		if got != want {
			return fmt.Errorf("round %d: got %q, want %q", i, got, want)
		}
	}
	sim.Sometimes(rounds > 0, "client completed a round trip")
	log.Printf("%d round trips", rounds)
	return nil
}

// dialRetry dials addr, retrying for a second while the server is not
// listening yet (the nodes boot in an order the seed chooses, and dialing a
// port nobody listens on is refused).
func dialRetry(addr string) (net.Conn, error) {
	for i := 0; ; i++ {
		c, err := sim.Dial("tcp", addr)
		if err == nil || i == 100 {
			return c, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
