// Command server is the bbolt example's node "server": a key-value server
// over go.etcd.io/bbolt v1.4.3, the B+tree store under etcd, which reads its
// pages through a read-only shared mmap of the database file and writes them
// with pwrite and fdatasync. compat_overlay supplies the mmap family and the
// wasip1 files bbolt lacks (docs/mmap.md).
//
// It speaks kvlog's line protocol (PUT <key> <value> -> OK, GET <key> ->
// VAL <value> or NOTFOUND), so kvlog's client is its workload. A PUT is
// answered OK only after its transaction committed. With -nosync (bbolt's
// DB.NoSync, "unsafe" in its own words) commits skip fsync: the negative
// control.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	bolt "go.etcd.io/bbolt"
	"seedfall.dev/sdk/sim"
)

var bucket = []byte("kv")

func main() {
	path := flag.String("data", "/data/bolt.db", "the database file")
	listen := flag.String("listen", ":7000", "address to listen on")
	noSync := flag.Bool("nosync", false, "commit without fsync (bbolt's NoSync)")
	flag.Parse()

	// The directory is the server's to make durable; the database file in
	// it is bbolt's.
	if err := os.MkdirAll("/data", 0o755); err != nil {
		fatalf("%v", err)
	}
	if err := syncDir("/"); err != nil {
		fatalf("sync /: %v", err)
	}
	db, err := bolt.Open(*path, 0o600, nil)
	if err != nil {
		fatalf("open: %v", err)
	}
	db.NoSync = *noSync
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		fatalf("create bucket: %v", err)
	}
	var n int
	db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucket).Stats().KeyN
		return nil
	})
	fmt.Fprintf(os.Stderr, "bbolt server incarnation %d recovered %d keys\n", sim.Incarnation(), n)

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
		go serve(c, db)
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
	fmt.Fprintf(os.Stderr, "bbolt server: "+format+"\n", args...)
	os.Exit(1)
}

func serve(c net.Conn, db *bolt.DB) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); line != "" || err == nil {
			fmt.Fprintf(w, "%s\n", handle(db, line))
		}
		if err != nil || w.Flush() != nil {
			return
		}
	}
}

func handle(db *bolt.DB, line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "PUT":
		err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucket).Put([]byte(f[1]), []byte(f[2]))
		})
		if err != nil {
			// Not acknowledged; restart to recover from what is durable.
			fatalf("put: %v", err)
		}
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		var v []byte
		db.View(func(tx *bolt.Tx) error {
			v = tx.Bucket(bucket).Get([]byte(f[1]))
			return nil
		})
		if v != nil {
			return "VAL " + string(v)
		}
		return "NOTFOUND"
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
