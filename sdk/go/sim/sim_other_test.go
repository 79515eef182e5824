//go:build !wasip1

package sim

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestListenDialRoundTrip(t *testing.T) {
	l, err := Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != "ping" {
		t.Fatalf("echo: got %q", buf)
	}
}

func TestDialRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Dial("tcp", addr)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("Dial to a closed port: %v, want a dial *net.OpError", err)
	}
}

// panicMessage runs f and returns what it panicked with ("" if it did not).
func panicMessage(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(string)
			if !ok {
				t.Fatalf("panic value %T %v, want a string", r, r)
			}
			msg = s
		}
	}()
	f()
	return ""
}

func TestAssertionsPanicWithMessage(t *testing.T) {
	cases := []struct {
		name string
		f    func()
	}{
		{"Assert", func() { Assert(false, "the message") }},
		{"Always", func() { Always(false, "the message") }},
		{"Unreachable", func() { Unreachable("the message") }},
		{"Fail", func() { Fail("the message") }},
		{"Eventually", func() { Eventually(20*time.Millisecond, func() bool { return false }, "the message") }},
	}
	for _, c := range cases {
		got := panicMessage(t, c.f)
		if !strings.Contains(got, "the message") || !strings.Contains(got, c.name) {
			t.Errorf("%s: panic %q, want one naming %s and containing the message", c.name, got, c.name)
		}
	}
}

func TestTrueConditionsDoNotPanic(t *testing.T) {
	if got := panicMessage(t, func() {
		Assert(true, "a")
		Always(true, "b")
		Sometimes(false, "c") // no-op even when false
		Sometimes(true, "c")
		Reachable("d")
		QuietFor(time.Second)
		QuietFor(-1)
		SetupComplete()
		Progress()
	}); got != "" {
		t.Fatalf("panicked: %q", got)
	}
}

func TestBudgetDefault(t *testing.T) {
	for _, n := range []int{0, 1, 500, 1 << 30} {
		if got := Budget(n); got != n {
			t.Errorf("Budget(%d) = %d", n, got)
		}
	}
}

func TestEventuallySucceeds(t *testing.T) {
	calls := 0
	start := time.Now()
	Eventually(5*time.Second, func() bool { calls++; return calls == 3 }, "third call")
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
	if d := time.Since(start); d < 2*pollInterval || d > 2*time.Second {
		t.Fatalf("took %v, want about two poll intervals", d)
	}
	// Already true: no sleep at all.
	start = time.Now()
	Eventually(time.Hour, func() bool { return true }, "at once")
	if d := time.Since(start); d > pollInterval {
		t.Fatalf("true condition took %v", d)
	}
}

func TestEventuallyFailsAtDeadline(t *testing.T) {
	calls := 0
	start := time.Now()
	got := panicMessage(t, func() {
		Eventually(35*time.Millisecond, func() bool { calls++; return false }, "never")
	})
	if !strings.Contains(got, "never") || !strings.Contains(got, "35ms") {
		t.Fatalf("panic %q", got)
	}
	if d := time.Since(start); d < 35*time.Millisecond {
		t.Fatalf("gave up after %v, before the deadline", d)
	}
	if calls < 2 {
		t.Fatalf("cond called %d times", calls)
	}
	// A zero duration still evaluates cond once.
	calls = 0
	Eventually(0, func() bool { calls++; return true }, "zero")
	if calls != 1 {
		t.Fatalf("zero duration: %d calls", calls)
	}
}

func TestIdentity(t *testing.T) {
	if Node() == "" || Node() != Node() {
		t.Fatalf("Node() = %q", Node())
	}
	if Incarnation() != 1 {
		t.Fatalf("Incarnation() = %d", Incarnation())
	}
	if InSimulation() {
		t.Fatal("InSimulation() = true outside the simulator")
	}
}
