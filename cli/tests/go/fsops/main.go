// fsops exercises the os file API and prints what it observes, with paths
// relative to its scratch directory, so the same program run natively on
// Linux and under `seedfall exec` must print exactly the same lines.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

var base string

func rel(p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return r
}

// errnoName names an error portably: errno numbers and messages differ
// between Linux and wasip1 ("file exists" vs "File exists"), the meaning does not.
func errnoName(err error) string {
	for _, e := range []struct {
		target error
		name   string
	}{
		{syscall.EEXIST, "EEXIST"}, {syscall.ENOENT, "ENOENT"}, {syscall.ENOTDIR, "ENOTDIR"},
		{syscall.EISDIR, "EISDIR"}, {syscall.ENOTEMPTY, "ENOTEMPTY"}, {syscall.EINVAL, "EINVAL"},
		{syscall.EPERM, "EPERM"}, {syscall.EACCES, "EACCES"}, {syscall.ELOOP, "ELOOP"},
		{syscall.EBADF, "EBADF"},
	} {
		if errors.Is(err, e.target) {
			return e.name
		}
	}
	return fmt.Sprintf("other(%v)", err)
}

func check(what string, err error) {
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			fmt.Printf("%s: error %s %s: %s\n", what, pe.Op, rel(pe.Path), errnoName(pe.Err))
			return
		}
		var le *os.LinkError
		if errors.As(err, &le) {
			fmt.Printf("%s: error %s %s %s: %s\n", what, le.Op, rel(le.Old), rel(le.New), errnoName(le.Err))
			return
		}
		fmt.Printf("%s: error %s\n", what, errnoName(err))
		return
	}
	fmt.Printf("%s: ok\n", what)
}

func size(name string) {
	info, err := os.Stat(filepath.Join(base, name))
	if err != nil {
		check("stat "+name, err)
		return
	}
	fmt.Printf("stat %s: size=%d dir=%v mode=%v\n", name, info.Size(), info.IsDir(), info.Mode().Type())
}

// devices uses /dev/null and /dev/zero as Go programs do.
func devices() {
	info, err := os.Stat(os.DevNull)
	if err == nil {
		fmt.Printf("stat %s: size=%d mode=%v regular=%v\n", os.DevNull, info.Size(), info.Mode().Type(), info.Mode().IsRegular())
	}
	check("stat "+os.DevNull, err)
	f, err := os.OpenFile(os.DevNull, os.O_RDWR|os.O_TRUNC, 0)
	check("open "+os.DevNull, err)
	n, err := f.Write([]byte("vanishes"))
	fmt.Printf("write %s: %d %v\n", os.DevNull, n, err)
	n, err = f.Read(make([]byte, 4))
	fmt.Printf("read %s: %d %v\n", os.DevNull, n, err)
	check("close", f.Close())
	f, err = os.Open("/dev/zero")
	check("open /dev/zero", err)
	buf := []byte("xxxxx")
	n, err = f.Read(buf)
	fmt.Printf("read /dev/zero: %d %q %v\n", n, buf[:n], err)
	check("close", f.Close())
}

func main() {
	var err error
	base, err = os.MkdirTemp("", "fsops")
	if err != nil {
		panic(err)
	}
	p := func(name string) string { return filepath.Join(base, name) }

	f, err := os.Create(p("a.txt"))
	check("create a.txt", err)
	_, err = f.WriteString("hello, world\n")
	check("write", err)
	_, err = f.Seek(7, io.SeekStart)
	check("seek", err)
	buf := make([]byte, 5)
	_, err = f.Read(buf)
	check("read after seek", err)
	fmt.Printf("read: %q\n", buf)
	n, err := f.ReadAt(buf, 0)
	fmt.Printf("pread: %d %q %v\n", n, buf[:n], err)
	_, err = f.WriteAt([]byte("HELLO"), 0)
	check("pwrite", err)
	check("close", f.Close())

	f, err = os.OpenFile(p("a.txt"), os.O_APPEND|os.O_WRONLY, 0)
	check("open append", err)
	_, err = f.WriteString("appended\n")
	check("append", err)
	check("close", f.Close())
	data, err := os.ReadFile(p("a.txt"))
	fmt.Printf("contents: %q %v\n", data, err)

	check("truncate", os.Truncate(p("a.txt"), 5))
	size("a.txt")
	check("write b.txt", os.WriteFile(p("b.txt"), []byte("bee"), 0o644))
	check("rename a over b", os.Rename(p("a.txt"), p("b.txt")))
	data, err = os.ReadFile(p("b.txt"))
	fmt.Printf("b after rename: %q %v\n", data, err)
	_, err = os.Stat(p("a.txt"))
	fmt.Printf("a exists after rename: %v\n", !errors.Is(err, fs.ErrNotExist))

	check("mkdir d", os.Mkdir(p("d"), 0o755))
	check("mkdir d again", os.Mkdir(p("d"), 0o755))
	check("mkdirall d/e/f", os.MkdirAll(p("d/e/f"), 0o755))
	for _, name := range []string{"zeta", "alpha", "mid"} {
		check("write d/"+name, os.WriteFile(p("d/"+name), []byte(name), 0o644))
	}
	entries, err := os.ReadDir(p("d"))
	check("readdir d", err)
	for _, e := range entries {
		fmt.Printf("  entry %s dir=%v\n", e.Name(), e.IsDir())
	}
	size("d/alpha")
	size("d")

	check("symlink", os.Symlink("b.txt", p("link")))
	target, err := os.Readlink(p("link"))
	fmt.Printf("readlink: %q %v\n", target, err)
	info, err := os.Lstat(p("link"))
	if err == nil {
		fmt.Printf("lstat link: symlink=%v\n", info.Mode()&fs.ModeSymlink != 0)
	}
	data, err = os.ReadFile(p("link"))
	fmt.Printf("read through link: %q %v\n", data, err)
	check("hard link", os.Link(p("b.txt"), p("hard")))
	data, err = os.ReadFile(p("hard"))
	fmt.Printf("read hard link: %q %v\n", data, err)

	_, err = os.ReadFile(p("missing"))
	check("read missing", err)
	check("remove missing", os.Remove(p("missing")))
	check("remove non-empty dir", os.Remove(p("d")))
	check("rmdir-like remove of d/e/f", os.Remove(p("d/e/f")))
	check("remove file", os.Remove(p("hard")))
	_, err = os.Open(p("b.txt/inner"))
	check("open through a file", err)

	// The access mode of an open: the other direction fails.
	f, err = os.Open(p("b.txt"))
	check("open read-only", err)
	_, err = f.Write([]byte("x"))
	check("write to read-only", err)
	check("truncate read-only", f.Truncate(0))
	check("close", f.Close())
	f, err = os.OpenFile(p("b.txt"), os.O_WRONLY, 0)
	check("open write-only", err)
	_, err = f.Read(buf)
	check("read from write-only", err)
	check("close", f.Close())
	data, err = os.ReadFile(p("b.txt"))
	fmt.Printf("b after refused writes: %q %v\n", data, err)

	devices()

	var walked []string
	filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		walked = append(walked, rel(path))
		return nil
	})
	sort.Strings(walked)
	fmt.Println("walk:", walked)
	check("removeall", os.RemoveAll(base))
	_, err = os.Stat(base)
	fmt.Printf("base exists after removeall: %v\n", !errors.Is(err, fs.ErrNotExist))
}
