package sim

import (
	"io"
	"net"
	"time"
)

// The wrappers below are used for the simulator's sockets (sim_wasip1.go) but
// compile everywhere so they can be tested natively. They do two things the
// standard library cannot do on wasip1:
//
//   - Report meaningful addresses. WASI preview 1 has no getsockname or
//     getpeername, so net.FileListener/FileConn give every socket an empty
//     *net.TCPAddr (":0"); the wrappers report *Addr values ("server:7000").
//   - Report closed sockets as net.ErrClosed. net.FileListener and
//     net.FileConn on wasip1 copy the *os.File's poll.FD, including its isFile
//     bit, so use after Close fails with "use of closed file" instead of
//     net.ErrClosed ("use of closed network connection"), and accept loops
//     that test errors.Is(err, net.ErrClosed) never stop
//     ($GOROOT/src/internal/poll/fd_wasip1.go Copy, internal/poll/fd.go
//     errClosing).
//
// Every other method (CloseWrite, SetNoDelay, SyscallConn, ...) is promoted
// from the embedded standard-library value.

// errFileClosingText is the text of internal/poll.ErrFileClosing.
const errFileClosingText = "use of closed file"

// fixErr rewrites a *net.OpError from a wrapped socket: the closed-file error
// becomes net.ErrClosed, and non-nil Source and Addr become the wrapper's own
// addresses. Other errors (io.EOF in particular) are returned as they are.
func fixErr(err error, local, remote net.Addr) error {
	op, ok := err.(*net.OpError)
	if !ok {
		return err
	}
	e := *op
	if e.Source != nil && local != nil {
		e.Source = local
	}
	if e.Addr != nil && remote != nil {
		e.Addr = remote
	}
	if e.Err != nil && e.Err.Error() == errFileClosingText {
		e.Err = net.ErrClosed
	}
	return &e
}

// tcpListener wraps the *net.TCPListener made by net.FileListener.
type tcpListener struct {
	*net.TCPListener
	addr *Addr
	// names gives an accepted connection's addresses (nil: the listener's
	// address and an unknown peer).
	names func(c *net.TCPConn, laddr, raddr *Addr) (*Addr, *Addr)
}

func (l *tcpListener) Addr() net.Addr { return l.addr }

// Accept waits for and returns the next connection; in the simulator its
// addresses come from the host (the peer's node and port).
func (l *tcpListener) Accept() (net.Conn, error) {
	c, err := l.TCPListener.AcceptTCP()
	if err != nil {
		return nil, fixErr(err, nil, l.addr)
	}
	laddr, raddr := l.addr, &Addr{Net: "tcp"}
	if l.names != nil {
		laddr, raddr = l.names(c, laddr, raddr)
	}
	return &tcpConn{TCPConn: c, laddr: laddr, raddr: raddr}, nil
}

func (l *tcpListener) AcceptTCP() (*net.TCPConn, error) {
	c, err := l.TCPListener.AcceptTCP()
	return c, fixErr(err, nil, l.addr)
}

func (l *tcpListener) Close() error {
	return fixErr(l.TCPListener.Close(), nil, l.addr)
}

func (l *tcpListener) SetDeadline(t time.Time) error {
	return fixErr(l.TCPListener.SetDeadline(t), nil, l.addr)
}

// tcpConn wraps a *net.TCPConn made by net.FileConn or accepted by a
// tcpListener.
type tcpConn struct {
	*net.TCPConn
	laddr, raddr *Addr
}

func (c *tcpConn) fix(err error) error  { return fixErr(err, c.laddr, c.raddr) }
func (c *tcpConn) LocalAddr() net.Addr  { return c.laddr }
func (c *tcpConn) RemoteAddr() net.Addr { return c.raddr }
func (c *tcpConn) Close() error         { return c.fix(c.TCPConn.Close()) }
func (c *tcpConn) CloseRead() error     { return c.fix(c.TCPConn.CloseRead()) }
func (c *tcpConn) CloseWrite() error    { return c.fix(c.TCPConn.CloseWrite()) }
func (c *tcpConn) SetDeadline(t time.Time) error {
	return c.fix(c.TCPConn.SetDeadline(t))
}
func (c *tcpConn) SetReadDeadline(t time.Time) error {
	return c.fix(c.TCPConn.SetReadDeadline(t))
}
func (c *tcpConn) SetWriteDeadline(t time.Time) error {
	return c.fix(c.TCPConn.SetWriteDeadline(t))
}

func (c *tcpConn) Read(b []byte) (int, error) {
	n, err := c.TCPConn.Read(b)
	return n, c.fix(err)
}

func (c *tcpConn) Write(b []byte) (int, error) {
	n, err := c.TCPConn.Write(b)
	return n, c.fix(err)
}

// ReadFrom and WriteTo shadow the promoted *net.TCPConn methods so that
// io.Copy reports fixed errors too.
func (c *tcpConn) ReadFrom(r io.Reader) (int64, error) {
	n, err := c.TCPConn.ReadFrom(r)
	return n, c.fix(err)
}

func (c *tcpConn) WriteTo(w io.Writer) (int64, error) {
	n, err := c.TCPConn.WriteTo(w)
	return n, c.fix(err)
}

// udpConn wraps a connected *net.UDPConn made by net.FileConn.
type udpConn struct {
	*net.UDPConn
	laddr, raddr *Addr
}

func (c *udpConn) fix(err error) error  { return fixErr(err, c.laddr, c.raddr) }
func (c *udpConn) LocalAddr() net.Addr  { return c.laddr }
func (c *udpConn) RemoteAddr() net.Addr { return c.raddr }
func (c *udpConn) Close() error         { return c.fix(c.UDPConn.Close()) }
func (c *udpConn) SetDeadline(t time.Time) error {
	return c.fix(c.UDPConn.SetDeadline(t))
}
func (c *udpConn) SetReadDeadline(t time.Time) error {
	return c.fix(c.UDPConn.SetReadDeadline(t))
}
func (c *udpConn) SetWriteDeadline(t time.Time) error {
	return c.fix(c.UDPConn.SetWriteDeadline(t))
}

func (c *udpConn) Read(b []byte) (int, error) {
	n, err := c.UDPConn.Read(b)
	return n, c.fix(err)
}

func (c *udpConn) Write(b []byte) (int, error) {
	n, err := c.UDPConn.Write(b)
	return n, c.fix(err)
}

// wrapConn wraps a connection from net.FileConn, which is a *net.TCPConn or a
// *net.UDPConn.
func wrapConn(c net.Conn, laddr, raddr *Addr) net.Conn {
	switch c := c.(type) {
	case *net.TCPConn:
		return &tcpConn{TCPConn: c, laddr: laddr, raddr: raddr}
	case *net.UDPConn:
		return &udpConn{UDPConn: c, laddr: laddr, raddr: raddr}
	}
	return c
}
