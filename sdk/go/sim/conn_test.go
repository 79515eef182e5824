package sim

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestFixErr(t *testing.T) {
	local := &Addr{Net: "tcp", Node: "client"}
	remote := &Addr{Net: "tcp", Node: "server", Port: 7000}
	if fixErr(nil, local, remote) != nil {
		t.Fatal("nil error changed")
	}
	if fixErr(io.EOF, local, remote) != io.EOF {
		t.Fatal("io.EOF must stay io.EOF")
	}

	// What net.FileConn conns return on wasip1 after Close.
	closed := &net.OpError{Op: "read", Net: "tcp", Source: new(net.TCPAddr), Addr: new(net.TCPAddr),
		Err: errors.New("use of closed file")}
	err := fixErr(closed, local, remote)
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("%v: not net.ErrClosed", err)
	}
	if want := "read tcp client:0->server:7000: use of closed network connection"; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
	if closed.Err.Error() != "use of closed file" {
		t.Fatal("fixErr modified its argument")
	}

	// Errors keep their cause and Timeout; a nil Source stays nil.
	timeout := &net.OpError{Op: "accept", Net: "tcp", Addr: new(net.TCPAddr), Err: os.ErrDeadlineExceeded}
	err = fixErr(timeout, nil, remote)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%v lost its timeout", err)
	}
	if want := "accept tcp server:7000: i/o timeout"; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
	errReset := errors.New("connection reset by peer") // syscall.ECONNRESET, which plan9 lacks
	reset := &net.OpError{Op: "write", Net: "tcp", Source: new(net.TCPAddr), Addr: new(net.TCPAddr),
		Err: os.NewSyscallError("fd_write", errReset)}
	if err := fixErr(reset, local, remote); !errors.Is(err, errReset) {
		t.Fatalf("%v lost its cause", err)
	}
}

// TestWrappers runs the wrappers over real loopback sockets.
func TestWrappers(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	laddr := &Addr{Net: "tcp", Node: "server", Port: 7000}
	var l net.Listener = &tcpListener{TCPListener: ln, addr: laddr}
	if l.Addr().String() != "server:7000" {
		t.Fatalf("listener Addr %v", l.Addr())
	}

	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := wrapConn(raw, &Addr{Net: "tcp", Node: "client"}, laddr)
	if c.LocalAddr().String() != "client:0" || c.RemoteAddr().String() != "server:7000" {
		t.Fatalf("dialed conn %v -> %v", c.LocalAddr(), c.RemoteAddr())
	}
	s := <-accepted
	if s.LocalAddr().String() != "server:7000" || s.RemoteAddr().Network() != "tcp" {
		t.Fatalf("accepted conn %v -> %v", s.LocalAddr(), s.RemoteAddr())
	}

	// Promoted and shadowed methods.
	if _, ok := c.(interface{ CloseWrite() error }); !ok {
		t.Fatal("dialed conn lost CloseWrite")
	}
	if _, ok := s.(interface{ SetNoDelay(bool) error }); !ok {
		t.Fatal("accepted conn lost SetNoDelay")
	}
	go func() {
		io.Copy(s, s) // ReadFrom and WriteTo through the wrapper
		s.Close()
	}()
	if _, err := io.Copy(c, strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if _, err := io.Copy(&sb, c); err != nil || sb.String() != "hello" {
		t.Fatalf("echo %q, %v", sb.String(), err)
	}

	if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	_, err = c.Read(make([]byte, 1))
	if !errors.Is(err, net.ErrClosed) || !strings.Contains(err.Error(), "client:0->server:7000") {
		t.Fatalf("read after close: %v", err)
	}

	l.Close()
	_, err = l.Accept()
	if !errors.Is(err, net.ErrClosed) || !strings.Contains(err.Error(), "server:7000") {
		t.Fatalf("accept after close: %v", err)
	}
}

func TestWrapUDP(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	raw, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := wrapConn(raw, &Addr{Net: "udp", Node: "client"}, &Addr{Net: "udp", Node: "dns", Port: 53})
	defer c.Close()
	if c.RemoteAddr().String() != "dns:53" || c.LocalAddr().Network() != "udp" {
		t.Fatalf("%v -> %v", c.LocalAddr(), c.RemoteAddr())
	}
	if _, err := c.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _, err := pc.ReadFrom(buf); err != nil || string(buf[:n]) != "q" {
		t.Fatalf("datagram %q %v", buf[:n], err)
	}
}
