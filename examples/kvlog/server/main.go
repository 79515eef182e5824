// Command server is kvlog's key-value server: node "server" of the
// simulated cluster. It listens on :7000 and speaks a line protocol:
//
//	PUT <key> <value>   ->  OK            (the record is durable, in the fixed store)
//	                        ERR <text>    (a malformed request)
//	GET <key>           ->  VAL <value>
//	                        NOTFOUND
//
// Keys and values have no spaces or newlines, and keys no '='. The store is
// the log DIR/kv.log (package internal/store); -variant picks the fixed
// store or one of its bugs. When a write or fsync of the log fails, the
// fixed server does not acknowledge: it exits with status 1, and its
// supervisor (seedfall's `supervise: true`) restarts it to recover from what
// is durable.
//
// Outside the simulator:
//
//	go run ./server -data "$(mktemp -d)" -listen localhost:7000
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"seedfall.dev/examples/kvlog/internal/store"
	"seedfall.dev/sdk/sim"
)

func main() {
	variant := flag.String("variant", string(store.Fixed), "store behaviour: fixed, ack-before-fsync, torn-tail or fsync-retry")
	data := flag.String("data", "/data", "data directory (holds kv.log)")
	listen := flag.String("listen", ":7000", "address to listen on")
	flag.Parse()

	v, err := store.ParseVariant(*variant)
	if err != nil {
		fatalf("%v", err)
	}
	st, rec, err := store.Open(*data, v, func(err error) {
		// Called with the store locked: nothing else is acknowledged
		// before the process is gone.
		fatalf("%v; exiting without acknowledging, to recover from what is durable", err)
	})
	if err != nil {
		fatalf("open store: %v", err)
	}
	fmt.Fprintf(os.Stderr, "kvlog server %s incarnation %d generation %d recovered %d records (discarded %d bytes)\n", v, sim.Incarnation(), rec.Generation, rec.Records, rec.Discarded)
	if rec.TornBytes() > 0 {
		action := "truncated"
		if v == store.TornTail {
			action = "kept"
		}
		fmt.Fprintf(os.Stderr, "kvlog server: torn tail of %d bytes at offset %d %s\n", rec.TornBytes(), rec.GoodEnd, action)
		// Some seed of a sweep with torn writes must exercise this path;
		// configs that cannot tear a write list it in optional_properties.
		sim.Sometimes(true, "recovery found a torn tail")
	}

	l, err := sim.Listen("tcp", *listen)
	if err != nil {
		fatalf("%v", err)
	}
	for {
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			fatalf("accept: %v", err)
		}
		go serve(c, st)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kvlog server: "+format+"\n", args...)
	os.Exit(1)
}

// serve answers the requests of one connection until it closes.
func serve(c net.Conn, st *store.Store) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); line != "" || err == nil {
			fmt.Fprintf(w, "%s\n", handle(st, line))
		}
		if err != nil {
			w.Flush()
			return
		}
		// Flush once the client has nothing more in flight, so pipelined
		// requests get their replies in one write.
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// handle answers one request line.
func handle(st *store.Store, line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "PUT":
		err := st.Put(f[1], f[2])
		if err == nil {
			return "OK"
		}
		return "ERR " + err.Error()
	case len(f) == 2 && f[0] == "GET":
		if v, ok := st.Get(f[1]); ok {
			return "VAL " + v
		}
		return "NOTFOUND"
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
