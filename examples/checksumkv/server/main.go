// Command server is checksumkv's key-value server (node "server"): a
// write-ahead log of records in /data/kv.wal (store.go) behind a line
// protocol on :7000:
//
//	PUT <key> <value>   ->  OK                   (appended and fsynced)
//	GET <key>           ->  VAL <quoted value>   (read back from the log)
//	                        NOTFOUND
//	                        ERR <text>           (nothing served: retry)
//
// Values come back quoted (Go syntax), so a corrupt byte cannot break the
// protocol. -checksums makes the store check every record's CRC-32 at
// replay and on every read; without it the store trusts what it reads.
// A failed write or fsync ends the process without an answer; the
// supervisor (`supervise: true`) restarts it.
//
// Outside the simulator:
//
//	go run ./server -data "$(mktemp -d)" -listen localhost:7000 -checksums
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"seedfall.dev/sdk/sim"
)

func main() {
	data := flag.String("data", "/data", "data directory (holds kv.wal)")
	listen := flag.String("listen", ":7000", "address to listen on")
	checksums := flag.Bool("checksums", false, "check each record's CRC-32 at replay and on every read")
	flag.Parse()

	st, rec, err := openStore(*data, *checksums)
	if err != nil {
		fatalf("open: %v", err)
	}
	fmt.Fprintf(os.Stderr, "checksumkv server (checksums %v) incarnation %d: replayed %d records, log cut from %d to %d bytes (%d records read twice, %d failed twice)\n",
		*checksums, sim.Incarnation(), rec.records, rec.fileBytes, rec.goodEnd, st.rereads, st.cut)
	if *checksums {
		sim.Sometimes(st.rereads > 0, "replay read a record again after a failed checksum")
		sim.Sometimes(st.cut > 0, "replay ended the log at a record that failed its checksum twice")
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

func serve(c net.Conn, st *store) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		fmt.Fprintf(w, "%s\n", handle(st, strings.TrimSuffix(line, "\n")))
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

func handle(st *store, line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "PUT":
		if err := st.put(f[1], f[2]); err != nil {
			// What reached the page cache may or may not be durable: start
			// again from what the disk holds.
			fatalf("put %s: %v; exiting without acknowledging", f[1], err)
		}
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		v, found, err := st.get(f[1])
		switch {
		case errors.Is(err, errCorrupt):
			sim.Reachable("a GET refused a record that failed its checksum")
			fmt.Fprintf(os.Stderr, "checksumkv server: GET %s: the record fails its checksum: not served\n", f[1])
			return "ERR corrupt record"
		case err != nil:
			return "ERR " + err.Error()
		case !found:
			return "NOTFOUND"
		}
		return "VAL " + strconv.Quote(v)
	}
	return "ERR bad request"
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "checksumkv server: "+format+"\n", args...)
	os.Exit(1)
}
