// Command server is httpkv's key-value service: a plain net/http server
// with no seedfall import, run by seedfall through net_overlay. PUT /k/KEY
// stores the request body as KEY's value; GET /k/KEY answers it, or 404.
// Every value is appended to the log DATA/kv.log as "KEY=VALUE\n" and the
// map is rebuilt from the log at start (a torn last line is dropped).
//
// -variant ack-before-fsync (the bug) answers a PUT once the record is
// written, before it is fsynced: a crash then loses acknowledged values,
// still in the page cache. The fixed server fsyncs first.
//
// -h2c serves unencrypted HTTP/2 beside HTTP/1.1 on the same port.
//
// Outside the simulator: go run ./server -data "$(mktemp -d)" -listen localhost:8080
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

type store struct {
	mu    sync.Mutex
	log   *os.File
	vals  map[string]string
	fsync bool
}

func main() {
	variant := flag.String("variant", "fixed", "fixed or ack-before-fsync")
	data := flag.String("data", "/data", "data directory (holds kv.log)")
	listen := flag.String("listen", ":8080", "address to listen on")
	h2c := flag.Bool("h2c", false, "also serve unencrypted HTTP/2 (prior knowledge)")
	flag.Parse()
	if *variant != "fixed" && *variant != "ack-before-fsync" {
		fatalf("unknown variant %q", *variant)
	}
	s, err := open(*data, *variant == "fixed")
	if err != nil {
		fatalf("open: %v", err)
	}
	fmt.Fprintf(os.Stderr, "httpkv server %s recovered %d keys\n", *variant, len(s.vals))
	http.HandleFunc("/k/", s.serve)
	srv := &http.Server{Addr: *listen, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(*h2c)
	fatalf("serve: %v", srv.ListenAndServe())
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "httpkv server: "+format+"\n", args...)
	os.Exit(1)
}

// open replays DIR/kv.log and opens it for appending. The log and its
// directory entry are made durable before anything is acknowledged.
func open(dir string, fsync bool) (*store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "kv.log")
	s := &store{vals: map[string]string{}, fsync: fsync}
	if f, err := os.Open(path); err == nil {
		r := bufio.NewReader(f)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break // EOF, or a torn last line without its newline
			}
			if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok {
				s.vals[k] = v
			}
		}
		f.Close()
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	// The log's name lives in DIR and DIR's in its parent: both entries
	// must be durable too.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := syncDir(d); err != nil {
			return nil, err
		}
	}
	s.log = f
	return s, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func (s *store) serve(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/k/")
	if key == "" || strings.ContainsAny(key, "=\n") {
		http.Error(w, "bad key", http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.mu.Lock()
		v, ok := s.vals[key]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, v)
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil || strings.ContainsAny(string(body), "\n") {
			http.Error(w, "bad value", http.StatusBadRequest)
			return
		}
		if err := s.put(key, string(body)); err != nil {
			// Nothing is acknowledged after a failed write: exit and
			// recover from what is durable.
			fatalf("put %s: %v", key, err)
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *store) put(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.log, "%s=%s\n", key, value); err != nil {
		return err
	}
	if s.fsync {
		if err := s.log.Sync(); err != nil {
			return err
		}
	}
	s.vals[key] = value
	return nil
}
