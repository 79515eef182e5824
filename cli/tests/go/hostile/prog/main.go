// Command prog is the guest of the hostile-guest tests (cli/tests/hostile.rs):
// the first argument picks a behaviour.
//
//	hog            allocate and touch 1 MiB blocks without bound, keeping them all
//	wait           sleep 5s of virtual time, then exit 0
//	cat PATH       print the file's contents, or ERR <errno name>
//	readat PATH OFF N  print N bytes read at offset OFF (hex), or ERR <errno name>
//	seeded         pick one of hog, flood (64 MiB to stdout), proc (read
//	               /proc/self/environ) or calm from the first random byte, so
//	               a sweep holds seeds of each; say which on stderr, then
//	               serve (sleep) until the workload ends the run
//	failorspin     from the same byte: exit 1 at once (one seed in four), else
//	               spin without a call until the watchdog
//	say TEXT       print TEXT on stderr and exit 1 (a failure message a guest
//	               chose: control characters, a fake summary line)
package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

var keep [][]byte

func hog() {
	for {
		b := make([]byte, 1<<20)
		for i := range b {
			if i%4096 == 0 {
				b[i] = 1
			}
		}
		keep = append(keep, b)
	}
}

func errName(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return "ENOENT"
	case errors.Is(err, syscall.EACCES):
		return "EACCES"
	case errors.Is(err, syscall.EFBIG):
		return "EFBIG"
	}
	return err.Error()
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: prog hog|cat|readat|seeded ...")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "hog":
		hog()
	case "wait":
		time.Sleep(5 * time.Second)
	case "cat":
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			fmt.Println("ERR", errName(err))
			return
		}
		os.Stdout.Write(b)
	case "readat":
		off, _ := strconv.ParseInt(os.Args[3], 10, 64)
		n, _ := strconv.Atoi(os.Args[4])
		f, err := os.Open(os.Args[2])
		if err != nil {
			fmt.Println("ERR", errName(err))
			return
		}
		buf := make([]byte, n)
		got, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			fmt.Println("ERR", errName(err))
			return
		}
		fmt.Println(hex.EncodeToString(buf[:got]))
	case "seeded":
		var b [1]byte
		rand.Read(b[:])
		switch b[0] % 4 {
		case 0:
			fmt.Fprintln(os.Stderr, "seeded: hog")
			hog()
		case 1:
			fmt.Fprintln(os.Stderr, "seeded: flood")
			chunk := make([]byte, 1<<20)
			for i := 0; i < 64; i++ {
				os.Stdout.Write(chunk)
			}
		case 2:
			fmt.Fprintln(os.Stderr, "seeded: proc")
			if _, err := os.ReadFile("/proc/self/environ"); err == nil {
				fmt.Fprintln(os.Stderr, "read the host's /proc/self/environ")
				os.Exit(3)
			}
		default:
			fmt.Fprintln(os.Stderr, "seeded: calm")
		}
		time.Sleep(time.Hour)
	case "failorspin":
		var b [1]byte
		rand.Read(b[:])
		if b[0]%4 == 0 {
			fmt.Fprintln(os.Stderr, "failorspin: fail")
			os.Exit(1)
		}
		spin()
	case "say":
		fmt.Fprintln(os.Stderr, os.Args[2])
		os.Exit(1)
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
}

// spin loops without a call, so nothing reaches the host until the watchdog.
//
//go:noinline
func spin() {
	x := 0
	for {
		x++
	}
}
