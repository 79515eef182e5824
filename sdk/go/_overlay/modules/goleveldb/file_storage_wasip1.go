// seedfall's compat_overlay (docs/mmap.md) adds this file to
// github.com/syndtr/goleveldb v1.0.x's leveldb/storage, which has its
// platform functions for Unix, Windows, Plan 9 and Solaris only: the LOCK
// file held with flock (the overlay's syscall.Flock), rename, and a
// directory fsync.

//go:build wasip1

package storage

import (
	"os"
	"syscall"
)

type wasip1Lock struct{ file *os.File }

func (l *wasip1Lock) release() error {
	unlockErr := syscall.Flock(int(l.file.Fd()), syscall.LOCK_UN)
	if closeErr := l.file.Close(); unlockErr == nil {
		return closeErr
	}
	return unlockErr
}

func newFileLock(path string, readOnly bool) (fileLock, error) {
	mode, how := os.O_RDWR|os.O_CREATE, syscall.LOCK_EX
	if readOnly {
		mode, how = os.O_RDONLY|os.O_CREATE, syscall.LOCK_SH
	}
	file, err := os.OpenFile(path, mode, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(file.Fd()), how|syscall.LOCK_NB); err != nil {
		file.Close()
		return nil, err
	}
	return &wasip1Lock{file: file}, nil
}

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func syncDir(name string) error {
	dir, err := os.Open(name)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
