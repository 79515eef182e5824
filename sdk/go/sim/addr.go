package sim

import (
	"net"
	"strconv"
)

// Addr is the address of an endpoint in the simulated network: a node name and
// a port. Listeners and connections made by Listen and Dial in the simulator
// report *Addr values. A zero Node or Port means the host did not say (the
// ephemeral port of a dialing connection, the peer of an accepted one).
type Addr struct {
	Net  string // "tcp" or "udp"
	Node string // node name, as in the config ("server", "n2")
	Port int
}

// Network returns the address's network name, "tcp" or "udp".
func (a *Addr) Network() string {
	if a == nil {
		return "<nil>"
	}
	return a.Net
}

// String returns "node:port".
func (a *Addr) String() string {
	if a == nil {
		return "<nil>"
	}
	return net.JoinHostPort(a.Node, strconv.Itoa(a.Port))
}

// Network numbers of the seedfall ABI (docs/sdk-abi.md).
const (
	abiTCP int32 = 0
	abiUDP int32 = 1
)

// parseNetwork maps a Go network name to the ABI's network number and the
// canonical name reported by addresses.
func parseNetwork(network string) (abi int32, canon string, ok bool) {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return abiTCP, "tcp", true
	case "udp", "udp4", "udp6":
		return abiUDP, "udp", true
	}
	return 0, "", false
}

// splitAddress splits "host:port" and parses the port, which must be a
// decimal number in [0, 65535]. Service names ("http") are not looked up in
// the simulator. Errors are *net.AddrError, as the standard library returns.
func splitAddress(address string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, err
	}
	n, perr := strconv.ParseUint(p, 10, 16)
	if perr != nil {
		return "", 0, &net.AddrError{Err: "invalid port", Addr: address}
	}
	return host, int(n), nil
}

// isLocalHost reports whether host names this node's own address in a Go
// program: empty, "localhost", a loopback or unspecified IP literal, or the
// node's own name.
func isLocalHost(host, node string) bool {
	switch host {
	case "", "localhost", node:
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || ip.IsUnspecified()
	}
	return false
}
