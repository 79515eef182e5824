// Command server is the goleveldb example's node "server": a key-value
// server over github.com/syndtr/goleveldb v1.0.0 (a LevelDB in Go: a write
// ahead journal, memtables flushed to sorted tables, compactions, and a
// MANIFEST renamed into CURRENT), every write made with WriteOptions.Sync
// so it is fsynced before it returns. compat_overlay supplies the wasip1
// file lock, rename and directory fsync its storage package lacks
// (docs/mmap.md). A small write buffer (-buffer) makes a short run flush and
// compact many times.
//
// It speaks kvlog's line protocol (PUT <key> <value> -> OK, GET <key> ->
// VAL <value> or NOTFOUND), so kvlog's client is its workload. A PUT is
// answered OK only after its write returned. A database the library cannot
// open fails the property "the database opens after a restart", as no retry
// can make it open. With -nosync writes skip the fsync: the negative control.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"seedfall.dev/sdk/sim"
)

func main() {
	path := flag.String("data", "/data/db", "the database directory")
	listen := flag.String("listen", ":7000", "address to listen on")
	noSync := flag.Bool("nosync", false, "write without fsync")
	buffer := flag.Int("buffer", 4096, "WriteBuffer: memtable bytes before a flush to a table")
	flag.Parse()

	// The database's directory is the server's to make durable (goleveldb
	// would create it, but never syncs its parent); what goes in it is
	// goleveldb's.
	if err := os.MkdirAll(*path, 0o755); err != nil {
		fatalf("%v", err)
	}
	for _, dir := range []string{"/", filepath.Dir(*path)} {
		if err := syncDir(dir); err != nil {
			fatalf("sync %s: %v", dir, err)
		}
	}
	db, err := leveldb.OpenFile(*path, &opt.Options{WriteBuffer: *buffer})
	if err != nil {
		fmt.Fprintf(os.Stderr, "goleveldb server: open: %v\n", err)
	}
	sim.Always(err == nil, "the database opens after a restart")
	if err != nil {
		os.Exit(1)
	}
	writes := &opt.WriteOptions{Sync: !*noSync}
	n := 0
	it := db.NewIterator(nil, nil)
	for it.Next() {
		n++
	}
	it.Release()
	fmt.Fprintf(os.Stderr, "goleveldb server incarnation %d recovered %d keys\n", sim.Incarnation(), n)

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
		go serve(c, db, writes)
	}
}

func syncDir(path string) error {
	dir, err := os.Open(path)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "goleveldb server: "+format+"\n", args...)
	os.Exit(1)
}

func serve(c net.Conn, db *leveldb.DB, writes *opt.WriteOptions) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); line != "" || err == nil {
			fmt.Fprintf(w, "%s\n", handle(db, writes, line))
		}
		if err != nil || w.Flush() != nil {
			return
		}
	}
}

func handle(db *leveldb.DB, writes *opt.WriteOptions, line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "PUT":
		if err := db.Put([]byte(f[1]), []byte(f[2]), writes); err != nil {
			// Not acknowledged; restart to recover from what is durable.
			fatalf("put: %v", err)
		}
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		v, err := db.Get([]byte(f[1]), nil)
		if err == nil {
			return "VAL " + string(v)
		}
		if !errors.Is(err, leveldb.ErrNotFound) {
			fatalf("get: %v", err)
		}
		return "NOTFOUND"
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
