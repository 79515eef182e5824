// Package syscall, seedfall's compat_overlay (docs/mmap.md): the mmap(2)
// family wasip1 lacks and bbolt needs (through golang.org/x/sys/unix). A
// mapping is a Go byte slice the host keeps equal to a range of a file in
// the simulated disk (host/src/mmap.rs). seedfall adds this file to GOROOT's
// syscall package with `go build -overlay`.

//go:build wasip1

package syscall

import (
	"sync"
	"unsafe"
)

// The values Linux uses, so code written against Linux's constants keeps
// its meaning.
const (
	PROT_NONE  = 0x0
	PROT_READ  = 0x1
	PROT_WRITE = 0x2
	PROT_EXEC  = 0x4

	MAP_SHARED    = 0x1
	MAP_PRIVATE   = 0x2
	MAP_FIXED     = 0x10
	MAP_ANON      = 0x20
	MAP_ANONYMOUS = 0x20
	MAP_POPULATE  = 0x8000

	MADV_NORMAL     = 0x0
	MADV_RANDOM     = 0x1
	MADV_SEQUENTIAL = 0x2
	MADV_WILLNEED   = 0x3
	MADV_DONTNEED   = 0x4

	MS_ASYNC      = 0x1
	MS_INVALIDATE = 0x2
	MS_SYNC       = 0x4
)

//go:wasmimport seedfall mmap
//go:noescape
func seedfallMmap(fd int32, offset int64, addr unsafe.Pointer, length int32, prot int32, flags int32) int32

//go:wasmimport seedfall munmap
//go:noescape
func seedfallMunmap(addr unsafe.Pointer, length int32) int32

//go:wasmimport seedfall msync
//go:noescape
func seedfallMsync(addr unsafe.Pointer, length int32, flags int32) int32

// mappings holds every live mapping, so the garbage collector never frees
// memory the host still writes into; keyed by its first byte.
var mappings struct {
	sync.Mutex
	live map[*byte][]byte
}

// Mmap maps length bytes of the open file fd from offset (a multiple of the
// page size). An anonymous mapping is plain zeroed memory.
func Mmap(fd int, offset int64, length int, prot int, flags int) ([]byte, error) {
	if length <= 0 || length > 1<<31-1 || offset < 0 || offset%4096 != 0 {
		return nil, EINVAL
	}
	if flags&MAP_FIXED != 0 {
		return nil, EINVAL
	}
	b := make([]byte, length)
	if flags&MAP_ANON == 0 {
		if e := seedfallMmap(int32(fd), offset, unsafe.Pointer(&b[0]), int32(length), int32(prot), int32(flags)); e < 0 {
			return nil, Errno(-e)
		}
	}
	mappings.Lock()
	defer mappings.Unlock()
	if mappings.live == nil {
		mappings.live = make(map[*byte][]byte)
	}
	mappings.live[&b[0]] = b
	return b, nil
}

// Munmap unmaps a whole mapping Mmap returned; a shared writable mapping's
// changes go to the file first (not durably: that takes Msync or an fsync).
func Munmap(b []byte) error {
	if len(b) == 0 {
		return EINVAL
	}
	mappings.Lock()
	defer mappings.Unlock()
	m, ok := mappings.live[&b[0]]
	if !ok || len(m) != len(b) {
		return EINVAL
	}
	if e := seedfallMunmap(unsafe.Pointer(&b[0]), int32(len(b))); e < 0 {
		return Errno(-e)
	}
	delete(mappings.live, &b[0])
	return nil
}

// Msync writes a shared writable mapping's changes in b to the file, and
// with MS_SYNC makes them durable as fsync does.
func Msync(b []byte, flags int) error {
	if len(b) == 0 {
		return nil
	}
	if e := seedfallMsync(unsafe.Pointer(&b[0]), int32(len(b)), int32(flags)); e < 0 {
		return Errno(-e)
	}
	return nil
}

// Madvise accepts every advice: the simulated page cache has no paging.
func Madvise(b []byte, advice int) error { return nil }

// Mlock and Munlock succeed: nothing is ever paged out here.
func Mlock(b []byte) error { return nil }

func Munlock(b []byte) error { return nil }
