// reconnect is a client and an echo server (-serve, on :7000) for the
// conformance of reconnects under faults (cli/tests/net_overlay.rs): the
// client makes 100 exchanges, each on a fresh connection to server:7000,
// redialling whenever a dial or an exchange fails, and prints only what
// must hold in every seed, whatever the crashes or partitions did. Each
// failure it rode through goes to stderr, classified, for the replay.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

const exchanges = 100

func main() {
	serve := flag.Bool("serve", false, "run the echo server")
	expect := flag.String("expect", "", "exit 1 unless the summary printed is exactly this")
	flag.Parse()
	if *serve {
		server()
		return
	}
	done, other, late := 0, 0, 0
	for i := range exchanges {
		start := time.Now()
		for {
			err := exchange(i)
			if err == nil {
				break
			}
			kind := classify(err)
			fmt.Fprintf(os.Stderr, "exchange %d: %s\n", i, kind)
			if kind == "other" {
				other++
				fmt.Fprintf(os.Stderr, "  %v\n", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if time.Since(start) > 10*time.Second {
			late++
		}
		done++
		time.Sleep(50 * time.Millisecond)
	}
	summary := fmt.Sprintf("exchanges completed: %d of %d\n", done, exchanges) +
		fmt.Sprintf("failures other than refused, reset, closed or timed out: %d\n", other) +
		fmt.Sprintf("exchanges that took over 10s: %d\n", late)
	fmt.Print(summary)
	if *expect != "" && summary != *expect {
		fmt.Fprintf(os.Stderr, "summary %q, expected %q\n", summary, *expect)
		os.Exit(1)
	}
}

func exchange(i int) error {
	c, err := net.DialTimeout("tcp", "server:7000", 300*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	want := fmt.Sprintf("ping %d\n", i)
	if _, err := fmt.Fprint(c, want); err != nil {
		return err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("echo %q for %q", got, want)
	}
	return nil
}

// classify names what a real network does to a connection when its peer
// crashes or a partition cuts it.
func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case err.Error() == "EOF":
		return "closed"
	}
	return "other"
}

func server() {
	ln, err := net.Listen("tcp", ":7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			continue
		}
		go func() {
			defer c.Close()
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil {
				fmt.Fprint(c, line)
			}
		}()
	}
}
