package main

// store is an append-only log of records in one file, DIR/kv.wal, and an
// in-memory index from each key to the offset of its newest record. A PUT
// appends a record and fsyncs the file before it is acknowledged; a GET
// reads the key's record back from the file. At boot the log is replayed
// from the start to rebuild the index; the first record that does not
// parse (a tail cut by a crash) ends it, and the file is truncated there
// so that new records follow the last good one.
//
// A record:
//
//	0..4    n, the length of what follows the 8-byte header (little-endian)
//	4..8    CRC-32 (IEEE) of bytes 0..4 and of the n bytes after the header
//	8..10   the key's length k (little-endian)
//	10..    the key (k bytes), then the value (n-2-k bytes)
//
// Every record carries its CRC; -checksums decides whether anybody looks
// at it. With checksums, a GET whose record does not match its CRC answers
// that the record is corrupt (the client asks again later), and replay
// reads a record that does not match a second time (a read can return a
// flipped bit that the disk does not hold, and cutting the log for it
// would throw good records away); if it still does not match, the log
// ends there. A record that fails its CRC is never served. Without
// checksums, the bytes read are trusted: only lengths that do not fit are
// noticed.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
)

const (
	headerBytes = 8
	// maxRecord bounds n, so a corrupt length is never a huge allocation.
	maxRecord = 1 << 16
)

var errCorrupt = errors.New("corrupt record")

type location struct {
	off int64 // where the record starts
	n   int   // its n: the record is headerBytes+n bytes long
}

type store struct {
	checksums bool

	mu    sync.Mutex
	f     *os.File
	end   int64 // where the next record goes
	index map[string]location

	// Counted for the log lines and the properties.
	rereads int // replay: records read twice because the first read failed its CRC
	cut     int // replay: records that failed their CRC twice (the log ends there)
	refused int // GETs that found their record failing its CRC
}

// recovery is what a boot found.
type recovery struct {
	records   int   // good records replayed
	fileBytes int64 // the file's size before the cut
	goodEnd   int64 // where the last good record ends
}

func openStore(dir string, checksums bool) (*store, recovery, error) {
	var rec recovery
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, rec, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "kv.wal"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, rec, err
	}
	// The file's name must survive a crash too.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := syncDir(d); err != nil {
			return nil, rec, err
		}
	}
	s := &store{checksums: checksums, f: f, index: map[string]location{}}
	if rec, err = s.replay(); err != nil {
		return nil, rec, err
	}
	return s, rec, nil
}

// replay rebuilds the index from the log and cuts the file after the last
// good record.
func (s *store) replay() (recovery, error) {
	var rec recovery
	fi, err := s.f.Stat()
	if err != nil {
		return rec, err
	}
	rec.fileBytes = fi.Size()
	data := make([]byte, rec.fileBytes)
	if _, err := s.f.ReadAt(data, 0); err != nil && rec.fileBytes > 0 {
		return rec, fmt.Errorf("read log: %w", err)
	}
	var off int64
	for {
		n, ok := s.fits(data[off:])
		if !ok {
			break
		}
		raw := data[off : off+headerBytes+int64(n)]
		if s.checksums && !intact(raw) {
			// Read it again from the file: a flipped bit in what one read
			// returned is not a flipped bit on the disk.
			s.rereads++
			again := make([]byte, len(raw))
			if _, err := s.f.ReadAt(again, off); err != nil || !intact(again) {
				s.cut++
				fmt.Fprintf(os.Stderr, "checksumkv server: replay: the record at offset %d fails its checksum: the log ends there\n", off)
				break
			}
			raw = again
		}
		key, _, ok := decode(raw)
		if !ok {
			break
		}
		s.index[key] = location{off: off, n: n}
		rec.records++
		off += headerBytes + int64(n)
	}
	rec.goodEnd = off
	s.end = off
	if off < rec.fileBytes {
		if err := s.f.Truncate(off); err != nil {
			return rec, err
		}
		if err := s.f.Sync(); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// fits says whether b starts with a whole record, and its n.
func (s *store) fits(b []byte) (int, bool) {
	if len(b) < headerBytes {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint32(b[0:4]))
	if n < 2 || n > maxRecord || n > len(b)-headerBytes {
		return 0, false
	}
	return n, true
}

// intact says whether a record's CRC matches its bytes.
func intact(raw []byte) bool {
	sum := crc32.NewIEEE()
	sum.Write(raw[0:4])
	sum.Write(raw[headerBytes:])
	return sum.Sum32() == binary.LittleEndian.Uint32(raw[4:8])
}

// decode splits a record's body into key and value; false if the key's
// length does not fit in the record.
func decode(raw []byte) (key, value string, ok bool) {
	body := raw[headerBytes:]
	k := int(binary.LittleEndian.Uint16(body[0:2]))
	if k > len(body)-2 {
		return "", "", false
	}
	return string(body[2 : 2+k]), string(body[2+k:]), true
}

func encode(key, value string) []byte {
	n := 2 + len(key) + len(value)
	raw := make([]byte, headerBytes+n)
	binary.LittleEndian.PutUint32(raw[0:4], uint32(n))
	binary.LittleEndian.PutUint16(raw[8:10], uint16(len(key)))
	copy(raw[10:], key)
	copy(raw[10+len(key):], value)
	sum := crc32.NewIEEE()
	sum.Write(raw[0:4])
	sum.Write(raw[headerBytes:])
	binary.LittleEndian.PutUint32(raw[4:8], sum.Sum32())
	return raw
}

// put appends key=value and fsyncs; the caller acknowledges only if it
// returns nil.
func (s *store) put(key, value string) error {
	raw := encode(key, value)
	if len(raw)-headerBytes > maxRecord || len(key) > 0xffff {
		return errors.New("record too large")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.WriteAt(raw, s.end); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.index[key] = location{off: s.end, n: len(raw) - headerBytes}
	s.end += int64(len(raw))
	return nil
}

// get reads key's newest record from the file. found is false for a key
// never written (or lost with a cut log); errCorrupt when the record read
// back does not hold up.
func (s *store) get(key string) (value string, found bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	loc, ok := s.index[key]
	if !ok {
		return "", false, nil
	}
	raw := make([]byte, headerBytes+loc.n)
	if _, err := s.f.ReadAt(raw, loc.off); err != nil {
		return "", false, err
	}
	if s.checksums && !intact(raw) {
		// Not served. The client asks again later: a flipped bit in what
		// one read returned is gone from the next read.
		s.refused++
		return "", false, errCorrupt
	}
	_, value, ok = decode(raw)
	if !ok {
		return "", false, errCorrupt
	}
	return value, true, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
