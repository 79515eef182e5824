// A guest that checks compat_overlay's syscall.Mmap from the inside
// (docs/mmap.md): a shared mapping sees writes made through a descriptor,
// a writable one's changes reach reads after msync and munmap, and bbolt
// v1.4.3 opens, writes, and reads a database back through its mapping.
// With -map N it maps N bytes and touches them: past the node's memory cap,
// Go runs out of memory.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

func main() {
	size := flag.Int("map", 0, "map this many bytes of a file and touch every page")
	flag.Parse()
	var err error
	if *size > 0 {
		err = mapBig(*size)
	} else {
		err = checkAll()
	}
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
}

func checkAll() error {
	for _, check := range []struct {
		name string
		run  func() error
	}{
		{"a shared mapping sees a write", coherence},
		{"msync writes changes back", msyncWritesBack},
		{"munmap writes changes back", munmapWritesBack},
		{"bbolt reads back what it wrote", boltRoundTrip},
	} {
		if err := check.run(); err != nil {
			return fmt.Errorf("%s: %w", check.name, err)
		}
		fmt.Println("ok:", check.name)
	}
	return nil
}

func file(name string, contents []byte) (*os.File, error) {
	f, err := os.OpenFile("/tmp/"+name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(contents)
	return f, err
}

func coherence() error {
	f, err := file("coherent", bytes.Repeat([]byte("a"), 8192))
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 8192, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	defer syscall.Munmap(m)
	private, err := syscall.Mmap(int(f.Fd()), 0, 8192, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer syscall.Munmap(private)
	if _, err := f.WriteAt([]byte("written"), 5000); err != nil {
		return err
	}
	if got := string(m[5000:5007]); got != "written" {
		return fmt.Errorf("the shared mapping shows %q", got)
	}
	if got := string(private[5000:5007]); got != "aaaaaaa" {
		return fmt.Errorf("the private mapping shows %q", got)
	}
	if err := f.Truncate(4096); err != nil {
		return err
	}
	if m[5000] != 0 {
		return fmt.Errorf("past a truncation the mapping shows %q", m[5000])
	}
	reopened, err := os.OpenFile("/tmp/coherent", os.O_RDWR|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	defer reopened.Close()
	if m[0] != 0 {
		return fmt.Errorf("after an open with O_TRUNC the mapping shows %q", m[0])
	}
	return nil
}

func readBack(f *os.File, at int64, n int) (string, error) {
	buf := make([]byte, n)
	_, err := f.ReadAt(buf, at)
	return string(buf), err
}

func msyncWritesBack() error {
	f, err := file("msync", bytes.Repeat([]byte("b"), 4096))
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	copy(m[100:], "mapped")
	if err := syscall.Msync(m, syscall.MS_SYNC); err != nil {
		return err
	}
	if got, err := readBack(f, 100, 6); got != "mapped" || err != nil {
		return fmt.Errorf("read %q, %v", got, err)
	}
	return syscall.Munmap(m)
}

func munmapWritesBack() error {
	f, err := file("munmap", bytes.Repeat([]byte("c"), 4096))
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 8192, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	copy(m[10:], "gone back")
	m[5000] = 'x' // past the end of the file: never written back
	if err := syscall.Munmap(m); err != nil {
		return err
	}
	if got, err := readBack(f, 10, 9); got != "gone back" || err != nil {
		return fmt.Errorf("read %q, %v", got, err)
	}
	if st, err := f.Stat(); err != nil || st.Size() != 4096 {
		return fmt.Errorf("the file grew to %d (%v)", st.Size(), err)
	}
	return nil
}

func boltRoundTrip() error {
	db, err := bolt.Open("/tmp/bolt.db", 0o600, nil)
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("kv"))
		if err != nil {
			return err
		}
		for i := 0; i < 2000; i++ {
			if err := b.Put([]byte(fmt.Sprintf("key%05d", i)), bytes.Repeat([]byte{byte(i)}, 100)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	db, err = bolt.Open("/tmp/bolt.db", 0o600, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("kv"))
		if b == nil {
			return fmt.Errorf("no bucket after reopening")
		}
		if n := b.Stats().KeyN; n != 2000 {
			return fmt.Errorf("%d keys after reopening", n)
		}
		if v := b.Get([]byte("key01234")); !bytes.Equal(v, bytes.Repeat([]byte{byte(1234 % 256)}, 100)) {
			return fmt.Errorf("key01234 = %x", v)
		}
		return nil
	})
}

func mapBig(size int) error {
	f, err := file("big", []byte("x"))
	if err != nil {
		return err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	fmt.Println("mapped", len(m), "bytes")
	return nil
}
