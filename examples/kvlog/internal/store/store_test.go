package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func open(t *testing.T, dir string, v Variant) (*Store, Recovery) {
	t.Helper()
	s, rec, err := Open(dir, v, func(err error) { t.Errorf("fatal: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	return s, rec
}

func put(t *testing.T, s *Store, k, v string) {
	t.Helper()
	if err := s.Put(k, v); err != nil {
		t.Fatal(err)
	}
}

func want(t *testing.T, s *Store, k, v string, present bool) {
	t.Helper()
	got, ok := s.Get(k)
	if ok != present || (present && got != v) {
		t.Errorf("Get(%q) = %q, %v; want %q, %v", k, got, ok, v, present)
	}
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestEncodeReplay(t *testing.T) {
	var log []byte
	for i := 0; i < 5; i++ {
		log = append(log, Encode(fmt.Sprintf("k%d", i), fmt.Sprintf("v=%d", i))...)
	}
	got := map[string]string{}
	n, end := Replay(log, func(k, v string) { got[k] = v })
	if n != 5 || end != int64(len(log)) || got["k3"] != "v=3" {
		t.Fatalf("Replay = %d, %d, %v", n, end, got)
	}
	// Every proper prefix is a torn tail and replays to a record boundary.
	one := len(Encode("k0", "v=0"))
	for cut := 0; cut < len(log); cut++ {
		n, end := Replay(log[:cut], func(string, string) {})
		if n != cut/one || end != int64(cut/one*one) {
			t.Fatalf("cut %d: Replay = %d, %d", cut, n, end)
		}
	}
	// A flipped byte or a zero-filled hole stops recovery there.
	bad := bytes.Clone(log)
	bad[2*one+HeaderSize] ^= 1
	if n, _ := Replay(bad, func(string, string) {}); n != 2 {
		t.Fatalf("bad CRC: %d records", n)
	}
	hole := bytes.Clone(log)
	clear(hole[one : 2*one])
	if n, _ := Replay(hole, func(string, string) {}); n != 1 {
		t.Fatalf("hole: %d records", n)
	}
}

func TestReopen(t *testing.T) {
	for _, v := range Variants {
		t.Run(string(v), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			s, rec := open(t, dir, v)
			if !rec.Created || rec.Records != 0 {
				t.Fatalf("first open: %+v", rec)
			}
			put(t, s, "a", "1")
			put(t, s, "b", "2")
			put(t, s, "a", "3")
			want(t, s, "a", "3", true)
			want(t, s, "c", "", false)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, rec = open(t, dir, v)
			defer s.Close()
			if rec.Created || rec.Records != 3 || rec.TornBytes() != 0 {
				t.Fatalf("reopen: %+v", rec)
			}
			want(t, s, "a", "3", true)
			want(t, s, "b", "2", true)
		})
	}
}

func TestInvalid(t *testing.T) {
	s, _ := open(t, t.TempDir(), Fixed)
	defer s.Close()
	for _, kv := range [][2]string{{"", "x"}, {"a=b", "x"}, {"a b", "x"}, {"a", "x y"}, {"a", "x\n"}} {
		if err := s.Put(kv[0], kv[1]); err != ErrInvalid {
			t.Errorf("Put(%q, %q) = %v", kv[0], kv[1], err)
		}
	}
}

// A torn tail: the fixed store truncates it and keeps later records; the
// torn-tail variant appends after it and loses them at the next recovery.
func TestTornTail(t *testing.T) {
	for _, v := range []Variant{Fixed, TornTail} {
		t.Run(string(v), func(t *testing.T) {
			dir := t.TempDir()
			s, _ := open(t, dir, v)
			put(t, s, "k1", "v1")
			s.Close()
			torn := Encode("k2", "v2")
			appendBytes(t, filepath.Join(dir, LogName), torn[:len(torn)-3])

			s, rec := open(t, dir, v)
			if rec.Records != 1 || rec.TornBytes() != int64(len(torn)-3) {
				t.Fatalf("recovery: %+v", rec)
			}
			put(t, s, "k3", "v3")
			want(t, s, "k3", "v3", true)
			s.Close()

			s, rec = open(t, dir, v)
			defer s.Close()
			want(t, s, "k1", "v1", true)
			want(t, s, "k2", "", false)
			want(t, s, "k3", "v3", v == Fixed)
			if v == Fixed && (rec.Records != 2 || rec.TornBytes() != 0) {
				t.Fatalf("fixed second recovery: %+v", rec)
			}
		})
	}
}
