// Command server is grpckv's key-value service: a plain gRPC server
// (google.golang.org/grpc, no seedfall import) run by seedfall through
// net_overlay. Put(key, value) stores a value, Get(key) answers it or
// NOT_FOUND. Every key is a file of its own, DATA/KEY, holding the value;
// a Put writes DATA/KEY.tmp, fsyncs it, renames it to DATA/KEY and fsyncs
// DATA before it answers, so every Put creates a directory entry. At start
// the values are read back from DATA (leftover .tmp files are removed).
//
// -variant no-dir-fsync (the bug) skips the fsync of DATA after the rename:
// the file's contents are durable but its name is not, so where a
// directory entry is durable only once the directory is fsynced (POSIX's
// promise; seedfall's strict_dirs) a crash loses acknowledged keys.
//
// Outside the simulator: go run ./server -data "$(mktemp -d)" -listen localhost:7000
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"seedfall.dev/examples/grpckv/kvpb"
)

type store struct {
	kvpb.UnimplementedKVServer

	dir     string
	dirSync bool

	mu   sync.Mutex
	vals map[string]string
}

func main() {
	variant := flag.String("variant", "fixed", "fixed or no-dir-fsync")
	data := flag.String("data", "/data", "data directory (one file per key)")
	listen := flag.String("listen", ":7000", "address to listen on")
	flag.Parse()
	if *variant != "fixed" && *variant != "no-dir-fsync" {
		fatalf("unknown variant %q", *variant)
	}
	s, err := open(*data, *variant == "fixed")
	if err != nil {
		fatalf("open: %v", err)
	}
	fmt.Fprintf(os.Stderr, "grpckv server %s recovered %d keys\n", *variant, len(s.vals))
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fatalf("listen: %v", err)
	}
	srv := grpc.NewServer()
	kvpb.RegisterKVServer(srv, s)
	fatalf("serve: %v", srv.Serve(lis))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "grpckv server: "+format+"\n", args...)
	os.Exit(1)
}

// open reads every DIR/KEY back and removes the .tmp files a crash left.
// DIR's own entry (in its parent) is made durable before anything is
// acknowledged, in both variants.
func open(dir string, dirSync bool) (*store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := syncDir(d); err != nil {
			return nil, err
		}
	}
	s := &store{dir: dir, dirSync: dirSync, vals: map[string]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			// A Put that was never answered.
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, err
			}
			continue
		}
		if !validKey(name) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		s.vals[name] = string(b)
	}
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

// validKey: a key is a file name in DIR, so letters, digits, '-' and '_'.
func validKey(key string) bool {
	if key == "" || len(key) > 200 {
		return false
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func (s *store) Get(_ context.Context, req *kvpb.GetRequest) (*kvpb.GetResponse, error) {
	s.mu.Lock()
	v, ok := s.vals[req.GetKey()]
	s.mu.Unlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no key %q", req.GetKey())
	}
	return &kvpb.GetResponse{Value: v}, nil
}

func (s *store) Put(_ context.Context, req *kvpb.PutRequest) (*kvpb.PutResponse, error) {
	if !validKey(req.GetKey()) {
		return nil, status.Errorf(codes.InvalidArgument, "bad key %q", req.GetKey())
	}
	if err := s.put(req.GetKey(), req.GetValue()); err != nil {
		// Nothing is acknowledged after a failed write: exit and recover
		// from what is durable.
		fatalf("put %s: %v", req.GetKey(), err)
	}
	return &kvpb.PutResponse{}, nil
}

// put makes value durable as DIR/KEY: write DIR/KEY.tmp, fsync it, rename
// it over DIR/KEY, fsync DIR (the rename is a change to DIR).
func (s *store) put(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, key)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(value); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if s.dirSync {
		if err := syncDir(s.dir); err != nil {
			return err
		}
	}
	s.vals[key] = value
	return nil
}
