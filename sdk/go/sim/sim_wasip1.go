//go:build wasip1

package sim

import (
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The "seedfall" import module, exactly as docs/sdk-abi.md specifies it.
// Results that can fail are >= 0 on success and -errno (WASI numbering, the
// same as syscall.Errno on wasip1) on failure.

//go:wasmimport seedfall node_name
//go:noescape
func hostNodeName(buf unsafe.Pointer, capacity int32) int32

//go:wasmimport seedfall incarnation
func hostIncarnation() int32

//go:wasmimport seedfall listen
func hostListen(network int32, port int32) int32

//go:wasmimport seedfall dial
//go:noescape
func hostDial(network int32, addr unsafe.Pointer, addrLen int32) int32

//go:wasmimport seedfall sock_name
//go:noescape
func hostSockName(fd int32, peer int32, buf unsafe.Pointer, capacity int32) int32

//go:wasmimport seedfall property
//go:noescape
func hostProperty(kind int32, cond int32, msg unsafe.Pointer, msgLen int32)

//go:wasmimport seedfall budget
func hostBudget(def int64) int64

//go:wasmimport seedfall quiet_for
func hostQuietFor(ns int64)

//go:wasmimport seedfall setup_complete
func hostSetupComplete()

//go:wasmimport seedfall progress
func hostProgress()

// Property kinds of the ABI.
const (
	kindAssert      int32 = 0
	kindAlways      int32 = 1
	kindSometimes   int32 = 2
	kindReachable   int32 = 3
	kindUnreachable int32 = 4
	kindFail        int32 = 5
)

func property(kind int32, cond bool, msg string) {
	c := int32(0)
	if cond {
		c = 1
	}
	hostProperty(kind, c, unsafe.Pointer(unsafe.StringData(msg)), int32(len(msg)))
	runtime.KeepAlive(msg)
}

// fail reports a failed property of kind fail. The host ends the run and the
// call is not expected to return; if it does, the program exits with status 1.
func fail(msg string) {
	property(kindFail, false, msg)
	os.Stderr.WriteString("sim.Fail: " + msg + "\n")
	os.Exit(1)
}

// Assert fails the run if cond is false.
func Assert(cond bool, msg string) { property(kindAssert, cond, msg) }

// Always is Assert for a property that must also be reached in some seed.
func Always(cond bool, msg string) { property(kindAlways, cond, msg) }

// Sometimes records a property that must be true in at least one seed of a
// sweep.
func Sometimes(cond bool, msg string) { property(kindSometimes, cond, msg) }

// Reachable records a property that must be reached in at least one seed.
func Reachable(msg string) { property(kindReachable, true, msg) }

// Unreachable fails the run when reached.
func Unreachable(msg string) { property(kindUnreachable, false, msg) }

// Fail fails the run now. It does not return.
func Fail(msg string) { fail(msg) }

func eventuallyFailed(within time.Duration, msg string) { fail(msg) }

// Budget returns the workload size to use: defaultOps, which the simulator
// may cap while shrinking a failure.
func Budget(defaultOps int) int { return int(hostBudget(int64(defaultOps))) }

// QuietFor asks the simulator to stop injecting faults and heal the network
// for d of virtual time, to check liveness.
func QuietFor(d time.Duration) { hostQuietFor(int64(max(d, 0))) }

// SetupComplete tells the simulator that setup is done; faults start after
// it.
func SetupComplete() { hostSetupComplete() }

// Progress tells the simulator that the workload got somewhere (a request
// answered, a step of its plan done). A seed whose workload calls Progress
// somewhere in its code but never reaches it fails as no_progress.
func Progress() { hostProgress() }

var nodeName = sync.OnceValue(func() string {
	buf := make([]byte, 64)
	for {
		n := hostNodeName(unsafe.Pointer(&buf[0]), int32(len(buf)))
		if n < 0 {
			panic("sim: seedfall.node_name failed: " + syscall.Errno(-n).Error())
		}
		if int(n) <= len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, n)
	}
})

// Node returns this node's name as written in the config ("server", "n2").
func Node() string { return nodeName() }

var incarnation = sync.OnceValue(func() int { return int(hostIncarnation()) })

// Incarnation returns 1 on a node's first boot and one more on each restart.
func Incarnation() int { return incarnation() }

// InSimulation reports whether the program runs in seedfall. Built for
// wasip1 it is always true: it calls the host's incarnation import, and a
// host without the seedfall module cannot instantiate the program.
func InSimulation() bool { return Incarnation() > 0 }

// Listen announces on a port of this node. The host part of address must be
// empty, "localhost", a loopback or unspecified IP, or this node's name.
// Only "tcp" (and "tcp4", "tcp6") is supported.
func Listen(network, address string) (net.Listener, error) {
	abi, canon, ok := parseNetwork(network)
	if !ok || abi != abiTCP {
		return nil, &net.OpError{Op: "listen", Net: network, Err: net.UnknownNetworkError(network)}
	}
	host, port, err := splitAddress(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	addr := &Addr{Net: canon, Node: Node(), Port: port}
	if !isLocalHost(host, addr.Node) {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: &Addr{Net: canon, Node: host, Port: port},
			Err: os.NewSyscallError("bind", syscall.EADDRNOTAVAIL)}
	}
	fd := hostListen(abi, int32(port))
	if fd < 0 {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr, Err: os.NewSyscallError(listenCall(fd), syscall.Errno(-fd))}
	}
	f := newSocketFile(int(fd), "seedfall-listen "+addr.String())
	l, err := net.FileListener(f)
	f.Close() // FileListener holds its own reference; closes the fd on error.
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr, Err: hostSocketError(int(fd), err)}
	}
	setNonblock(int(fd))
	return &tcpListener{TCPListener: l.(*net.TCPListener), addr: sockName(int(fd), false, addr), names: sockNames}, nil
}

// listenCall names the system call a Linux program would have seen fail.
func listenCall(res int32) string {
	switch syscall.Errno(-res) {
	case syscall.EADDRINUSE, syscall.EADDRNOTAVAIL, syscall.EACCES:
		return "bind"
	}
	return "listen"
}

// Dial connects to "node:port". Node names resolve; an empty host,
// "localhost" or a loopback IP mean this node. It blocks, in virtual time,
// until the connection is established or refused. Networks are "tcp" and
// "udp" (and their 4 and 6 variants).
func Dial(network, address string) (net.Conn, error) {
	abi, canon, ok := parseNetwork(network)
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError(network)}
	}
	host, port, err := splitAddress(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	self := Node()
	if isLocalHost(host, self) {
		host = self
	}
	raddr := &Addr{Net: canon, Node: host, Port: port}
	target := raddr.String()
	fd := hostDial(abi, unsafe.Pointer(unsafe.StringData(target)), int32(len(target)))
	runtime.KeepAlive(target)
	if fd < 0 {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: os.NewSyscallError("connect", syscall.Errno(-fd))}
	}
	f := newSocketFile(int(fd), "seedfall-dial "+target)
	c, err := net.FileConn(f)
	f.Close() // FileConn holds its own reference; closes the fd on error.
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: hostSocketError(int(fd), err)}
	}
	setNonblock(int(fd))
	return wrapConn(c, sockName(int(fd), false, &Addr{Net: canon, Node: self}), raddr), nil
}

// sockName asks the host for a socket's own (peer false) or its peer's
// address; fallback is kept when the host cannot say.
func sockName(fd int, peer bool, fallback *Addr) *Addr {
	p := int32(0)
	if peer {
		p = 1
	}
	buf := make([]byte, 64)
	for {
		n := hostSockName(int32(fd), p, unsafe.Pointer(&buf[0]), int32(len(buf)))
		if n < 0 {
			return fallback
		}
		if int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		host, port, err := splitAddress(string(buf[:n]))
		if err != nil {
			return fallback
		}
		return &Addr{Net: fallback.Net, Node: host, Port: port}
	}
}

// connFD is the descriptor under a connection the net package made.
func connFD(c syscall.Conn) int {
	fd := -1
	if raw, err := c.SyscallConn(); err == nil {
		_ = raw.Control(func(s uintptr) { fd = int(s) })
	}
	return fd
}

// newSocketFile wraps a host socket in an *os.File for net.FileListener or
// net.FileConn. The fd's NONBLOCK flag is cleared first so that os.NewFile
// does not register the fd with the runtime poller: on wasip1 the net package
// copies the *os.File's poll.FD (it cannot dup) and registers the copy again,
// and runtime.netpollclose removes the first registration with a matching fd
// number, which after reordering can be the net package's own
// ($GOROOT/src/os/file_unix.go newFileFromNewFile/newFile,
// $GOROOT/src/runtime/netpoll_wasip1.go netpollclose). setNonblock restores
// the flag once the net value exists, so the host answers EAGAIN instead of
// blocking. Errors are ignored: a host that cannot change the flag keeps its
// own.
func newSocketFile(fd int, name string) *os.File {
	_ = syscall.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), name)
}

func setNonblock(fd int) { _ = syscall.SetNonblock(fd, true) }

type hostSocketErr struct {
	fd  int
	err error
}

func (e *hostSocketErr) Error() string {
	return "seedfall host socket fd " + strconv.Itoa(e.fd) + " rejected by the net package: " + e.err.Error()
}

func (e *hostSocketErr) Unwrap() error { return e.err }

// hostSocketError explains a socket the net package refused, which is a host
// bug (the fd's filetype must be SOCKET_STREAM or SOCKET_DGRAM).
func hostSocketError(fd int, err error) error { return &hostSocketErr{fd: fd, err: err} }

// sockNames fills in an accepted connection's addresses from the host.
func sockNames(c *net.TCPConn, laddr, raddr *Addr) (*Addr, *Addr) {
	fd := connFD(c)
	if fd < 0 {
		return laddr, raddr
	}
	return sockName(fd, false, laddr), sockName(fd, true, raddr)
}
