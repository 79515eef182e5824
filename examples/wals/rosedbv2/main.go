// Command rosedbv2 is a node of the wals example (rosedbv2.json): a
// key-value server over the rosedb database itself,
// github.com/rosedblabs/rosedb/v2 v2.4.0, whose storage is
// github.com/rosedblabs/wal v1.3.8 (the library of rosedb.json). How a PUT
// is written, -put:
//
//	batch  a Batch with BatchOptions.Sync true (rosedb's DefaultBatchOptions)
//	       and Options.Sync false: Commit fsyncs the WAL (batch.go:512)
//	db     DB.Put with Options.Sync true, which the documentation says
//	       fsyncs every write; in v2.4.0 it never does (docs/findings.md)
//
// It speaks kvlog's line protocol (PUT <key> <value> -> OK, GET <key> ->
// VAL <value> or NOTFOUND), so kvlog's client is its workload. A PUT is
// answered OK only after Put returned. A database rosedb cannot open fails
// the property "the database opens after a restart": the server is
// restarted by supervision, and no retry can make it open.
//
// rosedb takes a lock file with github.com/gofrs/flock, which needs
// syscall.Flock: the config sets compat_overlay (docs/flock.md).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/rosedblabs/rosedb/v2"
	"seedfall.dev/sdk/sim"
)

func main() {
	data := flag.String("data", "/data/rosedb", "the database's directory")
	listen := flag.String("listen", ":7000", "address to listen on")
	put := flag.String("put", "batch", "how a PUT is written: batch or db")
	flag.Parse()
	if *put != "batch" && *put != "db" {
		fatalf("unknown -put %q (batch or db)", *put)
	}

	opts := rosedb.DefaultOptions
	opts.DirPath = *data
	opts.Sync = *put == "db"
	db, err := rosedb.Open(opts)
	if err != nil {
		// Said before the property fails, which ends the run.
		fmt.Fprintf(os.Stderr, "rosedb server: open: %v\n", err)
	}
	sim.Always(err == nil, "the database opens after a restart")
	if err != nil {
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "rosedb server incarnation %d: %d keys\n", sim.Incarnation(), db.Stat().KeysNum)

	s := &server{db: db, batch: *put == "batch"}
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
		go s.serve(c)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rosedb server: "+format+"\n", args...)
	os.Exit(1)
}

type server struct {
	mu    sync.Mutex // one request at a time
	db    *rosedb.DB
	batch bool
}

// putKey writes one key as -put says, durably before it returns (as the
// library promises).
func (s *server) putKey(k, v []byte) error {
	if !s.batch {
		return s.db.Put(k, v)
	}
	b := s.db.NewBatch(rosedb.DefaultBatchOptions)
	if err := b.Put(k, v); err != nil {
		b.Rollback()
		return err
	}
	return b.Commit()
}

func (s *server) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); line != "" || err == nil {
			fmt.Fprintf(w, "%s\n", s.handle(line))
		}
		if err != nil || w.Flush() != nil {
			return
		}
	}
}

func (s *server) handle(line string) string {
	f := strings.Fields(line)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(f) == 3 && f[0] == "PUT":
		if err := s.putKey([]byte(f[1]), []byte(f[2])); err != nil {
			// Not acknowledged; restart to recover from what is durable.
			fatalf("put: %v", err)
		}
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		v, err := s.db.Get([]byte(f[1]))
		if errors.Is(err, rosedb.ErrKeyNotFound) {
			return "NOTFOUND"
		}
		if err != nil {
			fatalf("get: %v", err)
		}
		return "VAL " + string(v)
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
