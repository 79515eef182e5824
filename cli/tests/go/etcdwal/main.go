// etcdwal creates, writes and locks an etcd write-ahead log (etcd server
// v3.7.3's storage/wal), which builds for wasip1 only with seedfall's
// compat_overlay (syscall.Flock). It checks the lock is real: while the WAL
// is open its segment cannot be locked again, after Close it can, and the
// log reads back. Exit 0 when all holds (cli/tests/net_overlay.rs).
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "etcdwal:", err)
		os.Exit(1)
	}
	fmt.Println("wal ok")
}

func run() error {
	dir := filepath.Join(os.TempDir(), "wal")
	w, err := wal.Create(zap.NewNop(), dir, []byte("meta"))
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if err := w.Save(&raftpb.HardState{Term: new(uint64(1)), Commit: new(uint64(1))},
		[]*raftpb.Entry{{Term: new(uint64(1)), Index: new(uint64(1)), Data: []byte("x")}}); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	segment := filepath.Join(dir, "0000000000000000-0000000000000000.wal")
	if _, err := fileutil.TryLockFile(segment, os.O_WRONLY, fileutil.PrivateFileMode); !errors.Is(err, fileutil.ErrLocked) {
		return fmt.Errorf("a second lock of the open WAL's segment: got %v, want ErrLocked", err)
	}
	fmt.Println("segment locked while open")
	if err := w.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	l, err := fileutil.TryLockFile(segment, os.O_WRONLY, fileutil.PrivateFileMode)
	if err != nil {
		return fmt.Errorf("lock after close: %w", err)
	}
	l.Close()
	fmt.Println("segment free after close")
	r, err := wal.Open(zap.NewNop(), dir, &walpb.Snapshot{})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer r.Close()
	meta, st, ents, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if string(meta) != "meta" || st.GetCommit() != 1 || len(ents) != 1 || string(ents[0].GetData()) != "x" {
		return fmt.Errorf("read back meta %q state %v entries %v", meta, st, ents)
	}
	fmt.Println("read back")
	return nil
}
