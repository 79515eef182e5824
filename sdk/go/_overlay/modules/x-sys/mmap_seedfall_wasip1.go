// seedfall's compat_overlay (docs/mmap.md) adds this file to
// golang.org/x/sys's unix package, which builds for wasip1 with almost
// nothing in it: the mmap family, forwarded to the overlay's syscall
// functions, for libraries such as bbolt that map files through x/sys.

//go:build wasip1

package unix

import "syscall"

const (
	PROT_NONE  = syscall.PROT_NONE
	PROT_READ  = syscall.PROT_READ
	PROT_WRITE = syscall.PROT_WRITE
	PROT_EXEC  = syscall.PROT_EXEC

	MAP_SHARED    = syscall.MAP_SHARED
	MAP_PRIVATE   = syscall.MAP_PRIVATE
	MAP_FIXED     = syscall.MAP_FIXED
	MAP_ANON      = syscall.MAP_ANON
	MAP_ANONYMOUS = syscall.MAP_ANONYMOUS
	MAP_POPULATE  = syscall.MAP_POPULATE

	MADV_NORMAL     = syscall.MADV_NORMAL
	MADV_RANDOM     = syscall.MADV_RANDOM
	MADV_SEQUENTIAL = syscall.MADV_SEQUENTIAL
	MADV_WILLNEED   = syscall.MADV_WILLNEED
	MADV_DONTNEED   = syscall.MADV_DONTNEED

	MS_ASYNC      = syscall.MS_ASYNC
	MS_INVALIDATE = syscall.MS_INVALIDATE
	MS_SYNC       = syscall.MS_SYNC
)

func Mmap(fd int, offset int64, length int, prot int, flags int) ([]byte, error) {
	return syscall.Mmap(fd, offset, length, prot, flags)
}

func Munmap(b []byte) error { return syscall.Munmap(b) }

func Msync(b []byte, flags int) error { return syscall.Msync(b, flags) }

func Madvise(b []byte, advice int) error { return syscall.Madvise(b, advice) }

func Mlock(b []byte) error { return syscall.Mlock(b) }

func Munlock(b []byte) error { return syscall.Munlock(b) }
