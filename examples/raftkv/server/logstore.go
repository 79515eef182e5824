package main

// logStore is raft's LogStore on one append-only file, DIR/raft.log, of
// checksummed records: an append of one entry, or the deletion of a range
// of indexes. Every call that changes the log returns only after the file
// is fsynced, so what raft was told is stored survives a crash. At open the
// records are replayed in order; the first record that is torn or fails its
// checksum ends the log (it was never acknowledged) and is cut off.
//
// The whole log is also kept in memory: runs are short, and raft's
// compaction (DeleteRange of a prefix) bounds it.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

const (
	recAppend byte = 'A'
	recDelete byte = 'D'
)

type logStore struct {
	mu      sync.Mutex
	file    *os.File
	entries map[uint64]*raft.Log
	first   uint64
	last    uint64
	// noSync skips the fsync of every commit: the negative control
	// (-log-fsync=false), which acknowledges entries a crash can take.
	noSync bool
}

func openLogStore(dir string, noSync bool) (*logStore, error) {
	path := filepath.Join(dir, "raft.log")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	s := &logStore{entries: map[uint64]*raft.Log{}, noSync: noSync}
	good := s.replay(data)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if good < len(data) {
		fmt.Fprintf(os.Stderr, "raftkv: raft.log: dropping %d bytes of an unfinished record at offset %d\n", len(data)-good, good)
	}
	if err := f.Truncate(int64(good)); err != nil {
		return nil, err
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	s.file = f
	return s, nil
}

// replay applies every whole record of data and returns the length of the
// prefix that holds them.
func (s *logStore) replay(data []byte) int {
	off := 0
	for {
		payload, n := readRecord(data[off:])
		if n == 0 {
			return off
		}
		s.apply(payload)
		off += n
	}
}

// readRecord splits one record (length, crc32, payload) off the front of
// data; n is 0 when there is no whole, intact record.
func readRecord(data []byte) (payload []byte, n int) {
	if len(data) < 8 {
		return nil, 0
	}
	size := int(binary.LittleEndian.Uint32(data))
	if size > len(data)-8 {
		return nil, 0
	}
	payload = data[8 : 8+size]
	if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(data[4:]) {
		return nil, 0
	}
	return payload, 8 + size
}

func (s *logStore) apply(payload []byte) {
	r := bytes.NewReader(payload)
	kind, _ := r.ReadByte()
	switch kind {
	case recAppend:
		l := decodeLog(r)
		s.entries[l.Index] = l
		if s.first == 0 || l.Index < s.first {
			s.first = l.Index
		}
		s.last = max(s.last, l.Index)
	case recDelete:
		var lo, hi uint64
		binary.Read(r, binary.LittleEndian, &lo)
		binary.Read(r, binary.LittleEndian, &hi)
		s.deleteRange(lo, hi)
	}
}

func (s *logStore) deleteRange(lo, hi uint64) {
	for i := lo; i <= hi && i <= s.last; i++ {
		delete(s.entries, i)
	}
	switch {
	case len(s.entries) == 0:
		s.first, s.last = 0, 0
	case lo <= s.first:
		s.first = hi + 1
	case hi >= s.last:
		s.last = lo - 1
	}
}

func (s *logStore) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first, nil
}

func (s *logStore) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, nil
}

func (s *logStore) GetLog(index uint64, out *raft.Log) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.entries[index]
	if !ok {
		return raft.ErrLogNotFound
	}
	*out = *l
	return nil
}

func (s *logStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

func (s *logStore) StoreLogs(logs []*raft.Log) error {
	var buf bytes.Buffer
	payloads := make([][]byte, len(logs))
	for i, l := range logs {
		var p bytes.Buffer
		p.WriteByte(recAppend)
		encodeLog(&p, l)
		payloads[i] = p.Bytes()
		writeRecord(&buf, payloads[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.commit(buf.Bytes()); err != nil {
		return err
	}
	for _, p := range payloads {
		s.apply(p)
	}
	return nil
}

func (s *logStore) DeleteRange(lo, hi uint64) error {
	var p bytes.Buffer
	p.WriteByte(recDelete)
	binary.Write(&p, binary.LittleEndian, lo)
	binary.Write(&p, binary.LittleEndian, hi)
	var buf bytes.Buffer
	writeRecord(&buf, p.Bytes())
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.commit(buf.Bytes()); err != nil {
		return err
	}
	s.deleteRange(lo, hi)
	return nil
}

// commit appends records and makes them durable before anything else sees
// them.
func (s *logStore) commit(records []byte) error {
	if _, err := s.file.Write(records); err != nil {
		return err
	}
	if s.noSync {
		return nil
	}
	return s.file.Sync()
}

func writeRecord(w *bytes.Buffer, payload []byte) {
	var head [8]byte
	binary.LittleEndian.PutUint32(head[:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(head[4:], crc32.ChecksumIEEE(payload))
	w.Write(head[:])
	w.Write(payload)
}

func encodeLog(w *bytes.Buffer, l *raft.Log) {
	binary.Write(w, binary.LittleEndian, l.Index)
	binary.Write(w, binary.LittleEndian, l.Term)
	w.WriteByte(byte(l.Type))
	writeBytes(w, l.Data)
	writeBytes(w, l.Extensions)
	binary.Write(w, binary.LittleEndian, l.AppendedAt.UnixNano())
}

func decodeLog(r *bytes.Reader) *raft.Log {
	l := &raft.Log{}
	binary.Read(r, binary.LittleEndian, &l.Index)
	binary.Read(r, binary.LittleEndian, &l.Term)
	t, _ := r.ReadByte()
	l.Type = raft.LogType(t)
	l.Data = readBytes(r)
	l.Extensions = readBytes(r)
	var at int64
	binary.Read(r, binary.LittleEndian, &at)
	l.AppendedAt = time.Unix(0, at)
	return l
}

func writeBytes(w *bytes.Buffer, b []byte) {
	binary.Write(w, binary.LittleEndian, uint32(len(b)))
	w.Write(b)
}

func readBytes(r *bytes.Reader) []byte {
	var n uint32
	binary.Read(r, binary.LittleEndian, &n)
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	io.ReadFull(r, b)
	return b
}
