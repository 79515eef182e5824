// Command server is the buntdb example's node "server": a key-value server
// over github.com/tidwall/buntdb, configured for durability (SyncPolicy
// Always: every committed transaction is fsynced before it returns) and with
// the library's own background shrinking of its append-only file, started
// early and often (-shrink-min, -shrink-pct) so a short run shrinks it many
// times, or turned off (-autoshrink=false).
//
// It speaks kvlog's line protocol (PUT <key> <value> -> OK, GET <key> ->
// VAL <value> or NOTFOUND), so kvlog's client is its workload. A PUT is
// answered OK only after its transaction committed.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/tidwall/buntdb"
	"seedfall.dev/sdk/sim"
)

func main() {
	path := flag.String("data", "/data/bunt.db", "the database's append-only file")
	listen := flag.String("listen", ":7000", "address to listen on")
	shrinkMin := flag.Int("shrink-min", 512, "AutoShrinkMinSize: the file size above which buntdb shrinks it")
	shrinkPct := flag.Int("shrink-pct", 10, "AutoShrinkPercentage: how much the file grows between shrinks")
	autoShrink := flag.Bool("autoshrink", true, "false sets AutoShrinkDisabled: buntdb never shrinks the file")
	flag.Parse()

	if err := os.MkdirAll("/data", 0o755); err != nil {
		fatalf("%v", err)
	}
	// The server made /data: make its name durable (strict_dirs), so that
	// what survives a crash inside it is buntdb's doing.
	if err := syncDir("/"); err != nil {
		fatalf("fsync /: %v", err)
	}
	db, err := buntdb.Open(*path)
	if err != nil {
		fatalf("open: %v", err)
	}
	var config buntdb.Config
	if err := db.ReadConfig(&config); err != nil {
		fatalf("read config: %v", err)
	}
	config.SyncPolicy = buntdb.Always
	config.AutoShrinkMinSize = *shrinkMin
	config.AutoShrinkPercentage = *shrinkPct
	config.AutoShrinkDisabled = !*autoShrink
	if err := db.SetConfig(config); err != nil {
		fatalf("set config: %v", err)
	}
	var n int
	db.View(func(tx *buntdb.Tx) error {
		n, err = tx.Len()
		return err
	})
	fmt.Fprintf(os.Stderr, "buntdb server incarnation %d recovered %d keys\n", sim.Incarnation(), n)

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

// syncDir fsyncs the directory dir, making the names in it durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "buntdb server: "+format+"\n", args...)
	os.Exit(1)
}

func serve(c net.Conn, db *buntdb.DB) {
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

func handle(db *buntdb.DB, line string) string {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "PUT":
		err := db.Update(func(tx *buntdb.Tx) error {
			_, _, err := tx.Set(f[1], f[2], nil)
			return err
		})
		if err != nil {
			// Not acknowledged; restart to recover from what is durable.
			fatalf("put: %v", err)
		}
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		var v string
		err := db.View(func(tx *buntdb.Tx) error {
			var err error
			v, err = tx.Get(f[1])
			return err
		})
		if err == nil {
			return "VAL " + v
		}
		return "NOTFOUND"
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
