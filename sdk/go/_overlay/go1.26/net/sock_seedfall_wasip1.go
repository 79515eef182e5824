// Package net, seedfall's net_overlay (docs/net-overlay.md): TCP and UDP
// sockets of net.Listen, net.Dial, net.ListenUDP and net.DialUDP go to the
// simulated network through the host's `seedfall` imports instead of Go's
// in-process fake network. seedfall adds this file (and
// udp_seedfall_wasip1.go, the datagram calls) to GOROOT's net package with
// `go build -overlay` and hooks it into net_fake.go's socket() and
// fd_fake.go's accept() with one line each; everything after creation (read,
// write, accept, shutdown, close, readiness, deadlines) already runs over
// WASI calls on the socket descriptor. Unix sockets still use the fake
// network.

//go:build wasip1

package net

import (
	"context"
	"os"
	"syscall"
	"unsafe"
)

//go:wasmimport seedfall listen
func seedfallListen(network int32, port int32) int32

//go:wasmimport seedfall connect
func seedfallConnect(ip uint32, port int32) int32

//go:wasmimport seedfall connect_status
func seedfallConnectStatus(fd int32) int32

//go:wasmimport seedfall sock_addr
func seedfallSockAddr(fd int32, peer int32) int64

//go:wasmimport seedfall resolve
func seedfallResolve(name unsafe.Pointer, len int32) int64

// seedfallSocket makes a TCP or UDP socket on the simulated network; ok is
// false for every other kind, which socket() then makes on the fake network.
func seedfallSocket(ctx context.Context, net string, family, sotype int, laddr, raddr sockaddr) (fd *netFD, err error, ok bool) {
	if family != syscall.AF_INET && family != syscall.AF_INET6 {
		return nil, nil, false
	}
	switch {
	case sotype == syscall.SOCK_STREAM && raddr == nil:
		fd, err = seedfallListenTCP(net, laddr)
	case sotype == syscall.SOCK_STREAM:
		fd, err = seedfallDialTCP(ctx, net, raddr)
	case sotype == syscall.SOCK_DGRAM:
		fd, err = seedfallUDP(net, laddr, raddr)
	default:
		return nil, nil, false
	}
	if fd != nil {
		fd.family, fd.sotype = family, sotype
	}
	return fd, err, true
}

func seedfallListenTCP(net string, laddr sockaddr) (*netFD, error) {
	port := 0
	if a, ok := laddr.(*TCPAddr); ok && a != nil {
		port = a.Port
	}
	s := seedfallListen(0, int32(port))
	if s < 0 {
		return nil, os.NewSyscallError("listen", syscall.Errno(-s))
	}
	fd, err := seedfallFD(net, s)
	if err != nil {
		return nil, err
	}
	fd.setAddr(seedfallAddr(s, 0), nil)
	return fd, nil
}

func seedfallDialTCP(ctx context.Context, net string, raddr sockaddr) (*netFD, error) {
	a, _ := raddr.(*TCPAddr)
	if a == nil {
		return nil, os.NewSyscallError("connect", syscall.EAFNOSUPPORT)
	}
	ip, ok := seedfallIPv4(a.IP)
	if !ok {
		return nil, os.NewSyscallError("connect", syscall.EHOSTUNREACH)
	}
	s := seedfallConnect(ip, int32(a.Port))
	if s < 0 {
		return nil, os.NewSyscallError("connect", syscall.Errno(-s))
	}
	fd, err := seedfallFD(net, s)
	if err != nil {
		return nil, err
	}
	if err := seedfallWaitConnected(ctx, fd, s); err != nil {
		fd.Close()
		return nil, err
	}
	fd.isConnected = true
	fd.setAddr(seedfallAddr(s, 0), seedfallAddr(s, 1))
	return fd, nil
}

// seedfallWaitConnected waits for a non-blocking connect the way Go's
// connect() does on Unix: poll for writability under the context's
// deadline, then ask for the socket's error.
func seedfallWaitConnected(ctx context.Context, fd *netFD, s int32) error {
	if deadline, has := ctx.Deadline(); has {
		fd.pfd.SetWriteDeadline(deadline)
		defer fd.pfd.SetWriteDeadline(noDeadline)
	}
	stop := context.AfterFunc(ctx, func() { fd.pfd.SetWriteDeadline(aLongTimeAgo) })
	defer stop()
	for {
		switch e := seedfallConnectStatus(s); e {
		case 0:
			return nil
		case -int32(syscall.EINPROGRESS):
		default:
			return os.NewSyscallError("connect", syscall.Errno(-e))
		}
		if err := fd.pfd.WaitWrite(); err != nil {
			if ctx.Err() != nil {
				return mapErr(ctx.Err())
			}
			return err
		}
	}
}

// seedfallFD wraps a host socket descriptor for netpoll.
func seedfallFD(net string, s int32) (*netFD, error) {
	fd := newFD(net, int(s))
	if err := fd.init(); err != nil {
		fd.Close()
		return nil, err
	}
	return fd, nil
}

// seedfallAccepted gives an accepted connection its addresses (hooked into
// fd_fake.go's accept(); WASI's sock_accept reports none).
func seedfallAccepted(fd *netFD) {
	s := int32(fd.pfd.Sysfd)
	fd.laddr, fd.raddr = seedfallAddr(s, 0), seedfallAddr(s, 1)
}

// seedfallLookupIP answers a lookup of a node's name (hooked into
// lookup.go's lookupIPAddr): the node's simulated IP, which /etc/hosts
// also gives it, without the resolver's configuration checks, file reads
// and singleflight goroutine on every dial. ok is false for any other name.
func seedfallLookupIP(host string) (addrs []IPAddr, ok bool) {
	v := seedfallResolve(unsafe.Pointer(unsafe.StringData(host)), int32(len(host)))
	if v < 0 {
		return nil, false
	}
	return []IPAddr{{IP: IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v))}}, true
}

// seedfallIPv4 is an IP as the host numbers it: IPv4 (IPv4-mapped IPv6
// included), and the IPv6 loopback and unspecified addresses as 127.0.0.1,
// which the host takes as the calling node itself; false for any other
// IPv6 address, which names no node.
func seedfallIPv4(ip IP) (uint32, bool) {
	v4 := ip.To4()
	if v4 == nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		v4 = IPv4(127, 0, 0, 1).To4()
	}
	if v4 == nil {
		return 0, false
	}
	return uint32(v4[0])<<24 | uint32(v4[1])<<16 | uint32(v4[2])<<8 | uint32(v4[3]), true
}

// seedfallUnpack splits the host's `ip << 16 | port` into an IP and a port.
func seedfallUnpack(v int64) (IP, int) {
	ip := uint32(v >> 16)
	return IPv4(byte(ip>>24), byte(ip>>16), byte(ip>>8), byte(ip)), int(v & 0xFFFF)
}

// seedfallAddr is the *TCPAddr of a socket's own (peer 0) or its peer's
// (peer 1) address: the node's simulated IP and the real port.
func seedfallAddr(s int32, peer int32) Addr {
	v := seedfallSockAddr(s, peer)
	if v < 0 {
		return new(TCPAddr)
	}
	ip, port := seedfallUnpack(v)
	return &TCPAddr{IP: ip, Port: port}
}
