// seedfall's compat_overlay (docs/mmap.md) adds this file to
// go.etcd.io/bbolt v1.4.x's internal/common, which has the sizes for every
// GOARCH but wasm. A mapping is a Go slice of at most 2 GiB here
// (syscall.Mmap of the overlay), the wasm32 memory's practical limit.

//go:build wasm

package common

// MaxMapSize is the largest mapping bbolt asks for.
const MaxMapSize = 0x7FFFFFFF

// MaxAllocSize is the length of the array types bbolt points into pages with.
const MaxAllocSize = 0x7FFFFFFF
