// Package syscall, seedfall's compat_overlay (docs/flock.md): the flock(2)
// API wasip1 lacks and etcd's client/pkg/v3/fileutil needs, backed by the
// host's advisory lock table (host/src/flock.rs). seedfall adds this file to
// GOROOT's syscall package with `go build -overlay`.

//go:build wasip1

package syscall

const (
	LOCK_SH = 0x1
	LOCK_EX = 0x2
	LOCK_NB = 0x4
	LOCK_UN = 0x8
)

// EWOULDBLOCK is EAGAIN, as on Linux and js.
const EWOULDBLOCK Errno = EAGAIN

//go:wasmimport seedfall flock
func seedfallFlock(fd int32, how int32) int32

// Flock applies or removes an advisory lock on the open file fd.
func Flock(fd int, how int) error {
	if e := seedfallFlock(int32(fd), int32(how)); e < 0 {
		return Errno(-e)
	}
	return nil
}
