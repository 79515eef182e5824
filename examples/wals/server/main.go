// Command server is the log server of the wals example: node "server",
// a key-value store whose only durable state is a write-ahead log kept by a
// real library, chosen with -lib:
//
//	tidwall   github.com/tidwall/wal (every Write fsyncs: NoSync is false)
//	rosedb    github.com/rosedblabs/wal (Options.Sync: every Write fsyncs)
//
// It speaks kvlog's line protocol (PUT <key> <value> -> OK, GET <key> ->
// VAL <value> or NOTFOUND), so kvlog's client is its workload. A PUT is
// answered OK only after the library's Write returned, i.e. after the entry
// was fsynced. On start it replays the log into memory; a log the library
// cannot open fails the property "the log opens after a restart", as no
// retry can make it open.
//
// The server does nothing about torn tails itself: what survives a crash is
// exactly what the library makes of it (docs/findings.md).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"

	rwal "github.com/rosedblabs/wal"
	twal "github.com/tidwall/wal"
	"seedfall.dev/sdk/sim"
)

// logFile is the part of a write-ahead log the server uses.
type logFile interface {
	// Append makes data durable before it returns.
	Append(data []byte) error
}

func main() {
	lib := flag.String("lib", "tidwall", "write-ahead log library: tidwall or rosedb")
	data := flag.String("data", "/data/wal", "the log's directory")
	listen := flag.String("listen", ":7000", "address to listen on")
	segmentSize := flag.Int("segment-size", 0, "tidwall: Options.SegmentSize in bytes, so a short run fills several segments (0: the library's default, 20 MB)")
	flag.Parse()

	kv := map[string]string{}
	replay := func(entry []byte) {
		if k, v, ok := strings.Cut(string(entry), "="); ok {
			kv[k] = v
		}
	}
	var log logFile
	var err error
	switch *lib {
	case "tidwall":
		log, err = openTidwall(*data, *segmentSize, replay)
	case "rosedb":
		log, err = openRosedb(*data, replay)
	default:
		err = fmt.Errorf("unknown -lib %q (tidwall or rosedb)", *lib)
	}
	if err != nil {
		// Said before the property fails, which ends the run.
		fmt.Fprintf(os.Stderr, "wals server: open %s log: %v\n", *lib, err)
	}
	sim.Always(err == nil, "the log opens after a restart")
	if err != nil {
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wals server (%s) incarnation %d recovered %d keys\n", *lib, sim.Incarnation(), len(kv))

	s := &server{log: log, kv: kv}
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

// tidwallLog numbers entries itself, as tidwall/wal wants the next index.
type tidwallLog struct {
	log  *twal.Log
	next uint64
}

func openTidwall(dir string, segmentSize int, replay func([]byte)) (logFile, error) {
	var opts *twal.Options
	if segmentSize > 0 {
		o := *twal.DefaultOptions
		o.SegmentSize = segmentSize
		opts = &o
	}
	log, err := twal.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	first, err := log.FirstIndex()
	if err != nil {
		return nil, err
	}
	last, err := log.LastIndex()
	if err != nil {
		return nil, err
	}
	for i := first; i <= last && last > 0; i++ {
		entry, err := log.Read(i)
		if err != nil {
			return nil, fmt.Errorf("read entry %d: %w", i, err)
		}
		replay(entry)
	}
	return &tidwallLog{log: log, next: last + 1}, nil
}

func (t *tidwallLog) Append(data []byte) error {
	if err := t.log.Write(t.next, data); err != nil {
		return err
	}
	t.next++
	return nil
}

type rosedbLog struct{ log *rwal.WAL }

// openRosedb replays the log up to its end: io.EOF, or the first chunk
// that does not read back (its checksum fails), which is how a crash
// mid-write leaves the tail.
func openRosedb(dir string, replay func([]byte)) (logFile, error) {
	opts := rwal.DefaultOptions
	opts.DirPath = dir
	opts.Sync = true
	log, err := rwal.Open(opts)
	if err != nil {
		return nil, err
	}
	r := log.NewReader()
	for {
		entry, _, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "wals server: the log ends at an unreadable chunk: %v\n", err)
			break
		}
		replay(entry)
	}
	return &rosedbLog{log: log}, nil
}

func (r *rosedbLog) Append(data []byte) error {
	_, err := r.log.Write(data)
	return err
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "wals server: "+format+"\n", args...)
	os.Exit(1)
}

type server struct {
	mu  sync.Mutex // one Append at a time, in the order of the map updates
	log logFile
	kv  map[string]string
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
	case len(f) == 3 && f[0] == "PUT" && !strings.Contains(f[1], "="):
		if err := s.log.Append([]byte(f[1] + "=" + f[2])); err != nil {
			// Not acknowledged; restart to recover from what is durable.
			fatalf("append: %v", err)
		}
		s.kv[f[1]] = f[2]
		return "OK"
	case len(f) == 2 && f[0] == "GET":
		if v, ok := s.kv[f[1]]; ok {
			return "VAL " + v
		}
		return "NOTFOUND"
	}
	return fmt.Sprintf("ERR bad request %q", line)
}
