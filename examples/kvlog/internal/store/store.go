// Package store is kvlog's log-structured key-value store: an in-memory map
// rebuilt at boot from an append-only log file, DIR/kv.log.
//
// DIR/kv.meta marks the directory as initialised, like LevelDB's CURRENT:
// every boot replaces it atomically (written to kv.meta.tmp with O_SYNC,
// renamed over, the directory fsynced) with the boot's generation. A missing
// or unreadable kv.meta means a store that never finished its first boot:
// its log is discarded.
//
// # Log format
//
// A record is an 8-byte header and a payload:
//
//	0..4  payload length, little-endian uint32 (1..MaxPayload)
//	4..8  CRC-32 (IEEE) of the payload, little-endian
//	8..   payload "key=value" (the key has no '='; neither has spaces or newlines)
//
// Recovery reads records from the start and stops at the first one that is
// truncated (a torn tail), has a bad checksum, or does not decode: such a
// record and everything after it are the torn tail. A zero-filled hole (what
// a write dropped by a failed fsync leaves behind once later writes are
// durable) stops recovery too, since an empty payload is invalid.
//
// # Variants
//
// The store implements the fixed behaviour and three bugs, each differing
// from Fixed in one place (see Variant).
package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Variant selects the store's behaviour.
type Variant string

const (
	// Fixed truncates a torn tail at recovery, and acknowledges a PUT only
	// after its record is written and the log fsynced. A failed write or
	// fsync poisons the store: the server exits and recovers from what is
	// durable, since after a failed fsync the page cache cannot be trusted.
	Fixed Variant = "fixed"
	// AckBeforeFsync acknowledges a PUT once its record is written; a
	// background goroutine fsyncs every GroupCommit (group commit). A crash
	// in between loses acknowledged writes.
	AckBeforeFsync Variant = "ack-before-fsync"
	// TornTail stops recovery at the first bad record but does not truncate
	// it: new records go after the garbage, where the next recovery, which
	// stops at the garbage, never finds them.
	TornTail Variant = "torn-tail"
	// FsyncRetry retries a failed fsync until one succeeds and then
	// acknowledges (fsyncgate: the failed fsync dropped the dirty pages, the
	// retry has nothing left to write and succeeds, and the record is not
	// durable).
	FsyncRetry Variant = "fsync-retry"
	// NoDirFsync never fsyncs a directory: correct where directory entries
	// are durable at once (ext4 and XFS in practice, no strict_dirs), lost
	// where they are not. `seedfall mutate` finds that its workload cannot
	// tell whether directory fsync works.
	NoDirFsync Variant = "no-dir-fsync"
)

// Variants lists every variant, Fixed first.
var Variants = []Variant{Fixed, AckBeforeFsync, TornTail, FsyncRetry, NoDirFsync}

// ParseVariant returns the variant called name.
func ParseVariant(name string) (Variant, error) {
	for _, v := range Variants {
		if string(v) == name {
			return v, nil
		}
	}
	names := make([]string, len(Variants))
	for i, v := range Variants {
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown variant %q (known: %s)", name, strings.Join(names, ", "))
}

const (
	// LogName is the log's file name inside the data directory.
	LogName = "kv.log"
	// MetaName is the marker file's name inside the data directory.
	MetaName = "kv.meta"
	// HeaderSize is the size of a record header.
	HeaderSize = 8
	// MaxPayload bounds a record's payload; a longer length field is garbage.
	MaxPayload = 1 << 16
	// GroupCommit is AckBeforeFsync's sync period.
	GroupCommit = 50 * time.Millisecond
	// fsyncRetries bounds FsyncRetry's loop (a sync that keeps failing is
	// not the bug this variant shows).
	fsyncRetries = 100
)

// ErrInvalid is returned by Put for a key or value the format cannot hold.
var ErrInvalid = errors.New("invalid key or value")

// Recovery describes what Open found in the log.
type Recovery struct {
	Records  int   // good records replayed
	GoodEnd  int64 // offset just past the last good record
	FileSize int64 // size of the log as found
	Created  bool  // the log did not exist
	// Generation is this boot's number in kv.meta (1 for a fresh store);
	// Discarded the bytes of a log found without a readable kv.meta.
	Generation int
	Discarded  int64
}

// TornBytes is the size of the torn tail found at recovery.
func (r Recovery) TornBytes() int64 { return r.FileSize - r.GoodEnd }

// Store is an open log and its map. Its methods are safe for concurrent use.
type Store struct {
	variant Variant
	path    string
	fatal   func(error)

	mu     sync.Mutex
	f      *os.File
	size   int64 // where the next record goes
	m      map[string]string
	dirty  bool  // AckBeforeFsync: records written since the last sync
	broken error // set by the first failed write or fsync; the store refuses service
	closed bool

	stop     chan struct{} // AckBeforeFsync: stops groupCommit
	done     chan struct{} // closed when groupCommit has returned
	stopOnce sync.Once
}

// Open opens (creating if needed) the log in dir, replays it, and makes
// what it replayed durable. fatal is called, with the store's lock held,
// when a write or fsync fails and the store cannot go on; it is expected to
// end the process (the server logs and exits with status 1). If fatal
// returns, the store stays broken and every later Put fails.
func Open(dir string, v Variant, fatal func(error)) (*Store, Recovery, error) {
	var rec Recovery
	if _, err := ParseVariant(string(v)); err != nil {
		return nil, rec, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, rec, err
	}
	path := filepath.Join(dir, LogName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		rec.Created = true
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, rec, err
	}
	// The names /data and /data/kv.log survive a crash only once their
	// directories are synced (strict_dirs, or ext4 without data=ordered).
	// Sync both at every boot: it covers the first creation, and a crash
	// after creating them but before the syncs.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := syncDir(v, d); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("fsync directory %s: %w", d, err)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, rec, fmt.Errorf("read %s: %w", path, err)
	}
	generation, initialised := readMeta(dir)
	if !initialised && len(data) > 0 {
		// The first boot never finished: nothing in the log was acknowledged.
		rec.Discarded, data = int64(len(data)), nil
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("truncate %s: %w", path, err)
		}
	}
	m := make(map[string]string)
	rec.Records, rec.GoodEnd = Replay(data, func(k, v string) { m[k] = v })
	rec.FileSize = int64(len(data))

	s := &Store{variant: v, path: path, fatal: fatal, f: f, m: m, size: rec.GoodEnd}
	if v == TornTail {
		// The bug: keep the garbage and append after it.
		s.size = rec.FileSize
	} else if rec.GoodEnd < rec.FileSize {
		if err := f.Truncate(rec.GoodEnd); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("truncate %s to %d: %w", path, rec.GoodEnd, err)
		}
	}
	// What was just read came from the page cache, which after a failed
	// fsync (and a restart without a crash) may hold records that are not
	// durable, with durable ones after them. Write the good prefix again, in
	// place and unchanged, and sync it, so that everything replayed, and so
	// everything the previous incarnation acknowledged, is durable before
	// anything new is appended.
	if rec.GoodEnd > 0 {
		if _, err := f.WriteAt(data[:rec.GoodEnd], 0); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("rewrite %s: %w", path, err)
		}
	}
	if rec.GoodEnd > 0 || rec.GoodEnd < rec.FileSize {
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, rec, fmt.Errorf("fsync %s: %w", path, err)
		}
	}
	rec.Generation = generation + 1
	if err := writeMeta(v, dir, rec.Generation); err != nil {
		f.Close()
		return nil, rec, fmt.Errorf("write %s: %w", MetaName, err)
	}
	if v == AckBeforeFsync {
		s.stop = make(chan struct{})
		s.done = make(chan struct{})
		go s.groupCommit()
	}
	return s, rec, nil
}

// readMeta returns the generation kv.meta records, and whether there is a
// readable one.
func readMeta(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, MetaName))
	if err != nil {
		return 0, false
	}
	var generation int
	if n, err := fmt.Sscanf(string(b), "kvlog %d\n", &generation); n != 1 || err != nil || generation < 1 {
		return 0, false
	}
	return generation, true
}

// writeMeta replaces kv.meta atomically: the new content is durable before
// the rename (O_SYNC), and the rename once the directory is fsynced.
func writeMeta(v Variant, dir string, generation int) error {
	tmp := filepath.Join(dir, MetaName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_SYNC, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "kvlog %d\n", generation)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, MetaName)); err != nil {
		return err
	}
	return syncDir(v, dir)
}

// syncDir fsyncs a directory, making its entries durable (except NoDirFsync).
func syncDir(v Variant, dir string) error {
	if v == NoDirFsync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Replay decodes the records at the start of data, calling apply for each
// good one, and returns how many were good and the offset just past the
// last good one.
func Replay(data []byte, apply func(key, value string)) (records int, goodEnd int64) {
	off := 0
	for {
		k, v, n, ok := decode(data[off:])
		if !ok {
			return records, int64(off)
		}
		apply(k, v)
		records++
		off += n
	}
}

// decode decodes the record at the start of b.
func decode(b []byte) (key, value string, size int, ok bool) {
	if len(b) < HeaderSize {
		return "", "", 0, false
	}
	n := binary.LittleEndian.Uint32(b[0:4])
	if n == 0 || n > MaxPayload || uint64(len(b)-HeaderSize) < uint64(n) {
		return "", "", 0, false
	}
	payload := b[HeaderSize : HeaderSize+int(n)]
	if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(b[4:8]) {
		return "", "", 0, false
	}
	k, v, found := bytes.Cut(payload, []byte("="))
	if !found || !validKey(string(k)) || !validValue(string(v)) {
		return "", "", 0, false
	}
	return string(k), string(v), HeaderSize + int(n), true
}

// Encode returns the record for key=value.
func Encode(key, value string) []byte {
	payload := key + "=" + value
	b := make([]byte, HeaderSize+len(payload))
	binary.LittleEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[4:8], crc32.ChecksumIEEE([]byte(payload)))
	copy(b[HeaderSize:], payload)
	return b
}

func validKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, "= \t\r\n")
}

func validValue(v string) bool {
	return !strings.ContainsAny(v, " \t\r\n")
}

// Get returns the value of key.
func (s *Store) Get(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

// Len returns the number of keys.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Put appends key=value to the log. When it returns nil the write may be
// acknowledged: for every variant but AckBeforeFsync, the log has been
// fsynced (which FsyncRetry gets wrong after a failed fsync).
func (s *Store) Put(key, value string) error {
	if !validKey(key) || !validValue(value) || len(key)+1+len(value) > MaxPayload {
		return ErrInvalid
	}
	rec := Encode(key, value)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return s.broken
	}
	if s.closed {
		return os.ErrClosed
	}
	// One write per record: a crash can tear it, never interleave it.
	if _, err := s.f.WriteAt(rec, s.size); err != nil {
		return s.fail(fmt.Errorf("write %s: %w", s.path, err))
	}
	s.size += int64(len(rec))
	if s.variant == AckBeforeFsync {
		// The bug: acknowledge now, sync later.
		s.dirty = true
		s.m[key] = value
		return nil
	}
	if err := s.sync(); err != nil {
		return err
	}
	s.m[key] = value
	return nil
}

// sync fsyncs the log with s.mu held, following the variant's policy on
// failure.
func (s *Store) sync() error {
	err := s.f.Sync()
	if err == nil {
		return nil
	}
	if s.variant == FsyncRetry {
		// The bug: the failed fsync dropped the dirty pages, so the retry
		// succeeds with nothing to write.
		for i := 0; i < fsyncRetries && err != nil; i++ {
			fmt.Fprintf(os.Stderr, "kvlog store: fsync %s: %v; retrying\n", s.path, err)
			err = s.f.Sync()
		}
		if err == nil {
			return nil
		}
	}
	return s.fail(fmt.Errorf("fsync %s: %w", s.path, err))
}

// fail poisons the store with err (s.mu held) and calls the fatal hook.
func (s *Store) fail(err error) error {
	if s.broken == nil {
		s.broken = err
	}
	if s.fatal != nil {
		s.fatal(err)
	}
	return s.broken
}

// groupCommit is AckBeforeFsync's background syncer.
func (s *Store) groupCommit() {
	defer close(s.done)
	t := time.NewTicker(GroupCommit)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		if s.dirty && s.broken == nil && !s.closed {
			s.dirty = false
			_ = s.sync()
		}
		s.mu.Unlock()
	}
}

// Close stops the background syncer, syncs and closes the log.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stopOnce.Do(func() { close(s.stop) })
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.broken == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
