package main

// stableStore is raft's StableStore (current term, last vote) as one small
// file, DIR/stable, rewritten whole on every Set: written to stable.tmp,
// fsynced, renamed over stable, and the directory fsynced, so a crash
// leaves either the old or the new contents and a vote once cast is never
// forgotten.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

type stableStore struct {
	mu   sync.Mutex
	dir  string
	vals map[string][]byte
}

func openStableStore(dir string) (*stableStore, error) {
	s := &stableStore{dir: dir, vals: map[string][]byte{}}
	data, err := os.ReadFile(filepath.Join(dir, "stable"))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	payload, n := readRecord(data)
	if n == 0 || n != len(data) {
		return nil, errors.New("stable: the file is damaged (it is only ever replaced by rename)")
	}
	r := bytes.NewReader(payload)
	for r.Len() > 0 {
		k, v := readBytes(r), readBytes(r)
		s.vals[string(k)] = v
	}
	return s, nil
}

func (s *stableStore) Set(key, val []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string][]byte{string(key): append([]byte(nil), val...)}
	for k, v := range s.vals {
		if k != string(key) {
			next[k] = v
		}
	}
	if err := s.write(next); err != nil {
		return err
	}
	s.vals = next
	return nil
}

func (s *stableStore) write(vals map[string][]byte) error {
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var p, buf bytes.Buffer
	for _, k := range keys {
		writeBytes(&p, []byte(k))
		writeBytes(&p, vals[k])
	}
	writeRecord(&buf, p.Bytes())
	tmp := filepath.Join(s.dir, "stable.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "stable")); err != nil {
		return err
	}
	return syncDir(s.dir)
}

// Get answers raft's "not found" for a key never set: raft compares the
// error's text.
func (s *stableStore) Get(key []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vals[string(key)]
	if !ok {
		return nil, errors.New("not found")
	}
	return v, nil
}

func (s *stableStore) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.LittleEndian.AppendUint64(nil, val))
}

func (s *stableStore) GetUint64(key []byte) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vals[string(key)]
	if len(v) != 8 {
		return 0, nil
	}
	return binary.LittleEndian.Uint64(v), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
