// Package net, seedfall's net_overlay for UDP (docs/net-overlay.md,
// docs/udp.md): net.ListenUDP, net.DialUDP and net.ListenPacket sockets live
// on the simulated network, made by seedfallSocket (sock_seedfall_wasip1.go).
// On wasip1 every datagram method of netFD (readFrom, writeTo and their
// Inet4/Inet6/Msg forms) is promoted from the fake network's *fakeNetFD,
// nil for a host socket; the methods below are declared on *netFD itself,
// so they take precedence, and hand a fake-network socket (a unix one) back
// to fakeNetFD. Read and Write of a connected socket need nothing here: they
// are fd_read/fd_write, which the host answers with one datagram each.
// Readiness and deadlines are netpoll's, through poll.FD's RawRead/RawWrite.
// Not here: control messages (oob) and read flags, which are ENOTSUP as on
// the fake network.

//go:build wasip1

package net

import (
	"internal/poll"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

//go:wasmimport seedfall udp_connect
func seedfallUDPConnect(fd int32, ip uint32, port int32) int32

//go:wasmimport seedfall udp_sendto
//go:noescape
func seedfallUDPSendTo(fd int32, ip uint32, port int32, buf unsafe.Pointer, n int32) int32

//go:wasmimport seedfall udp_recvfrom
//go:noescape
func seedfallUDPRecvFrom(fd int32, buf unsafe.Pointer, n int32, from unsafe.Pointer) int32

// seedfallUDP binds a datagram socket to laddr's port on this node (0: an
// ephemeral one) and, for a dial, connects it to raddr.
func seedfallUDP(net string, laddr, raddr sockaddr) (*netFD, error) {
	port := 0
	if a, ok := laddr.(*UDPAddr); ok && a != nil {
		port = a.Port
	}
	s := seedfallListen(1, int32(port))
	if s < 0 {
		return nil, os.NewSyscallError("bind", syscall.Errno(-s))
	}
	// Not a stream: a zero-length datagram is not EOF.
	fd := newPollFD(net, poll.FD{Sysfd: int(s)})
	if err := fd.init(); err != nil {
		fd.Close()
		return nil, err
	}
	if raddr == nil {
		fd.setAddr(seedfallUDPAddr(s, 0), nil)
		return fd, nil
	}
	a, _ := raddr.(*UDPAddr)
	if a == nil {
		fd.Close()
		return nil, os.NewSyscallError("connect", syscall.EAFNOSUPPORT)
	}
	ip, ok := seedfallIPv4(a.IP)
	if !ok {
		fd.Close()
		return nil, os.NewSyscallError("connect", syscall.EHOSTUNREACH)
	}
	if e := seedfallUDPConnect(s, ip, int32(a.Port)); e < 0 {
		fd.Close()
		return nil, os.NewSyscallError("connect", syscall.Errno(-e))
	}
	fd.isConnected = true
	fd.setAddr(seedfallUDPAddr(s, 0), seedfallUDPAddr(s, 1))
	return fd, nil
}

// seedfallUDPAddr is the *UDPAddr of a socket's own (peer 0) or its peer's
// (peer 1) address.
func seedfallUDPAddr(s int32, peer int32) Addr {
	v := seedfallSockAddr(s, peer)
	if v < 0 {
		return new(UDPAddr)
	}
	ip, port := seedfallUnpack(v)
	return &UDPAddr{IP: ip, Port: port}
}

// seedfallRecv takes one datagram (truncated to p) and its source, waiting
// under the read deadline while none is queued.
func (fd *netFD) seedfallRecv(p []byte) (n int, from IP, port int, err error) {
	var packed int64
	var failed error
	err = fd.pfd.RawRead(func(s uintptr) bool {
		r := seedfallUDPRecvFrom(int32(s), unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)), unsafe.Pointer(&packed))
		switch {
		case r == -int32(syscall.EAGAIN):
			return false
		case r < 0:
			failed = syscall.Errno(-r)
		default:
			n = int(r)
		}
		return true
	})
	runtime.KeepAlive(fd)
	if err == nil {
		err = failed
	}
	if err != nil {
		return 0, nil, 0, wrapSyscallError("recvfrom", err)
	}
	from, port = seedfallUnpack(packed)
	return n, from, port, nil
}

// seedfallSend sends p as one datagram to ip:port; a send never blocks, but
// a write deadline that has passed still fails it, as poll.FD's writes do.
func (fd *netFD) seedfallSend(p []byte, ip IP, port int) (int, error) {
	to, ok := seedfallIPv4(ip)
	if !ok {
		return 0, wrapSyscallError("sendto", syscall.EHOSTUNREACH)
	}
	var n int
	var failed error
	err := fd.pfd.RawWrite(func(s uintptr) bool {
		r := seedfallUDPSendTo(int32(s), to, int32(port), unsafe.Pointer(unsafe.SliceData(p)), int32(len(p)))
		if r < 0 {
			failed = syscall.Errno(-r)
		} else {
			n = int(r)
		}
		return true
	})
	runtime.KeepAlive(fd)
	if err == nil {
		err = failed
	}
	return n, wrapSyscallError("sendto", err)
}

func (fd *netFD) readFrom(p []byte) (int, syscall.Sockaddr, error) {
	if fd.fakeNetFD != nil {
		return fd.fakeNetFD.readFrom(p)
	}
	n, ip, port, err := fd.seedfallRecv(p)
	if err != nil {
		return 0, nil, err
	}
	if fd.family == syscall.AF_INET6 {
		sa := &syscall.SockaddrInet6{Port: port}
		copy(sa.Addr[:], ip.To16())
		return n, sa, nil
	}
	sa := &syscall.SockaddrInet4{Port: port}
	copy(sa.Addr[:], ip.To4())
	return n, sa, nil
}

func (fd *netFD) readFromInet4(p []byte, sa *syscall.SockaddrInet4) (int, error) {
	if fd.fakeNetFD != nil {
		return fd.fakeNetFD.readFromInet4(p, sa)
	}
	n, ip, port, err := fd.seedfallRecv(p)
	if err == nil {
		*sa = syscall.SockaddrInet4{Port: port}
		copy(sa.Addr[:], ip.To4())
	}
	return n, err
}

func (fd *netFD) readFromInet6(p []byte, sa *syscall.SockaddrInet6) (int, error) {
	if fd.fakeNetFD != nil {
		return fd.fakeNetFD.readFromInet6(p, sa)
	}
	n, ip, port, err := fd.seedfallRecv(p)
	if err == nil {
		*sa = syscall.SockaddrInet6{Port: port}
		copy(sa.Addr[:], ip.To16())
	}
	return n, err
}

// The Msg forms are the plain ones without control data, as on the fake
// network; readFrom and writeTo pick the network.

func (fd *netFD) readMsg(p []byte, oob []byte, flags int) (n, oobn, retflags int, sa syscall.Sockaddr, err error) {
	if flags != 0 {
		return 0, 0, 0, nil, os.NewSyscallError("readMsg", syscall.ENOTSUP)
	}
	n, sa, err = fd.readFrom(p)
	return n, 0, 0, sa, err
}

func (fd *netFD) readMsgInet4(p []byte, oob []byte, flags int, sa *syscall.SockaddrInet4) (n, oobn, retflags int, err error) {
	if flags != 0 {
		return 0, 0, 0, os.NewSyscallError("readMsgInet4", syscall.ENOTSUP)
	}
	n, err = fd.readFromInet4(p, sa)
	return n, 0, 0, err
}

func (fd *netFD) readMsgInet6(p []byte, oob []byte, flags int, sa *syscall.SockaddrInet6) (n, oobn, retflags int, err error) {
	if flags != 0 {
		return 0, 0, 0, os.NewSyscallError("readMsgInet6", syscall.ENOTSUP)
	}
	n, err = fd.readFromInet6(p, sa)
	return n, 0, 0, err
}

// writeTo sends to sa, or with sa nil to the connected peer (fd_write).
func (fd *netFD) writeTo(p []byte, sa syscall.Sockaddr) (int, error) {
	if fd.fakeNetFD != nil {
		return fd.fakeNetFD.writeTo(p, sa)
	}
	if sa != nil && fd.isConnected {
		return 0, os.NewSyscallError("writeTo", syscall.EISCONN)
	}
	switch sa := sa.(type) {
	case nil:
		return fd.Write(p)
	case *syscall.SockaddrInet4:
		return fd.seedfallSend(p, IP(sa.Addr[:]), sa.Port)
	case *syscall.SockaddrInet6:
		return fd.seedfallSend(p, IP(sa.Addr[:]), sa.Port)
	default:
		return 0, os.NewSyscallError("writeTo", syscall.EAFNOSUPPORT)
	}
}

func (fd *netFD) writeToInet4(p []byte, sa *syscall.SockaddrInet4) (int, error) {
	return fd.writeTo(p, sa)
}

func (fd *netFD) writeToInet6(p []byte, sa *syscall.SockaddrInet6) (int, error) {
	return fd.writeTo(p, sa)
}

func (fd *netFD) writeMsg(p []byte, oob []byte, sa syscall.Sockaddr) (n int, oobn int, err error) {
	if len(oob) > 0 {
		return 0, 0, os.NewSyscallError("writeMsg", syscall.ENOTSUP)
	}
	n, err = fd.writeTo(p, sa)
	return n, 0, err
}

func (fd *netFD) writeMsgInet4(p []byte, oob []byte, sa4 *syscall.SockaddrInet4) (n int, oobn int, err error) {
	var sa syscall.Sockaddr
	if sa4 != nil {
		sa = sa4
	}
	return fd.writeMsg(p, oob, sa)
}

func (fd *netFD) writeMsgInet6(p []byte, oob []byte, sa6 *syscall.SockaddrInet6) (n int, oobn int, err error) {
	var sa syscall.Sockaddr
	if sa6 != nil {
		sa = sa6
	}
	return fd.writeMsg(p, oob, sa)
}
