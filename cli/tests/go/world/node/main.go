// Command node is the guest of the world tests (cli/tests/world.rs): one
// program whose -mode picks a behaviour, so every config builds it once.
//
//	accept     listen on :7000 and wait for a connection that never comes
//	panic      panic after 10ms of virtual time
//	flaky      exit 1 on the first two incarnations; from the third, answer
//	           every connection on :7000 with the incarnation number
//	ask        (workload) dial server:7000 until it answers; fail unless it says 3
//	spin       spin in a loop without calls (the watchdog's case)
//	lockorder  two goroutines deadlock on two mutexes; main waits on :7000
//	quiet      (workload) ask for 1s without faults, sleep 2s, exit 0
//	clash      listen on :7000 twice: the second fails (address already in use), exit 1
//	forever    (workload) start faults, sleep forever: every run reaches the time horizon
//	noack      (workload) invoke five history operations, complete none, exit 0
//
// The modes that call sim.Progress live in ../progress: a module that
// imports it is one whose workload can fail as no_progress.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

func main() {
	mode := flag.String("mode", "", "behaviour (see the package doc)")
	flag.Parse()
	switch *mode {
	case "accept":
		l, err := sim.Listen("tcp", ":7000")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		l.Accept()
	case "panic":
		time.Sleep(10 * time.Millisecond)
		panic("boom")
	case "flaky":
		if sim.Incarnation() < 3 {
			fmt.Fprintf(os.Stderr, "flaky: incarnation %d gives up\n", sim.Incarnation())
			os.Exit(1)
		}
		l, err := sim.Listen("tcp", ":7000")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Printf("accepted %v <- %v\n", c.LocalAddr(), c.RemoteAddr())
			fmt.Fprintf(c, "%d\n", sim.Incarnation())
			c.Close()
		}
	case "ask":
		for {
			c, err := sim.Dial("tcp", "server:7000")
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			fmt.Printf("dialed %v -> %v\n", c.LocalAddr(), c.RemoteAddr())
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if got := strings.TrimSpace(line); got != "3" {
				sim.Fail("server answered incarnation " + got + ", want 3")
			}
			fmt.Println("server is up in incarnation 3")
			return
		}
	case "spin":
		spin()
	case "lockorder":
		lockOrder()
	case "quiet":
		sim.SetupComplete()
		time.Sleep(200 * time.Millisecond)
		sim.QuietFor(time.Second)
		fmt.Println("quiet window starts")
		time.Sleep(time.Second)
		fmt.Println("quiet window ends")
		time.Sleep(time.Second)
	case "clash":
		first, err := sim.Listen("tcp", ":7000")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_, err = sim.Listen("tcp", ":7000")
		fmt.Fprintln(os.Stderr, err)
		first.Close()
		os.Exit(1)
	case "forever":
		sim.SetupComplete()
		for {
			time.Sleep(100 * time.Millisecond)
		}
	case "noack":
		for i := range 5 {
			sim.Put(0, "k", fmt.Sprint(i))
			time.Sleep(10 * time.Millisecond)
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown -mode %q\n", *mode)
		os.Exit(2)
	}
}

// spin loops forever without a call: with no loop counters nothing in it
// reaches the preemption hook.
//
//go:noinline
func spin() {
	x := 0
	for {
		x++
	}
}

// lockOrder deadlocks two goroutines on two mutexes taken in opposite
// orders, then waits on the network as a server does: the world finds every
// node blocked, and its replay must show both goroutines' stacks.
func lockOrder() {
	var first, second sync.Mutex
	a, b := make(chan struct{}), make(chan struct{})
	go lockBoth(&first, &second, a, b)
	go lockBoth(&second, &first, b, a)
	l, err := sim.Listen("tcp", ":7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	l.Accept()
}

func lockBoth(mine, theirs *sync.Mutex, ready, other chan struct{}) {
	mine.Lock()
	close(ready)
	<-other
	theirs.Lock()
}
