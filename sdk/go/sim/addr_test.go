package sim

import (
	"errors"
	"net"
	"testing"
)

func TestAddr(t *testing.T) {
	a := &Addr{Net: "tcp", Node: "server", Port: 7000}
	if a.String() != "server:7000" || a.Network() != "tcp" {
		t.Fatalf("%q %q", a.String(), a.Network())
	}
	var _ net.Addr = a
	var nilAddr *Addr
	if nilAddr.String() != "<nil>" || nilAddr.Network() != "<nil>" {
		t.Fatal("nil *Addr")
	}
	if s := (&Addr{Net: "tcp"}).String(); s != ":0" {
		t.Fatalf("zero Addr prints %q", s)
	}
}

func TestParseNetwork(t *testing.T) {
	for _, c := range []struct {
		in    string
		abi   int32
		canon string
		ok    bool
	}{
		{"tcp", abiTCP, "tcp", true}, {"tcp4", abiTCP, "tcp", true}, {"tcp6", abiTCP, "tcp", true},
		{"udp", abiUDP, "udp", true}, {"udp4", abiUDP, "udp", true}, {"udp6", abiUDP, "udp", true},
		{"unix", 0, "", false}, {"ip4:icmp", 0, "", false}, {"", 0, "", false}, {"TCP", 0, "", false},
	} {
		abi, canon, ok := parseNetwork(c.in)
		if abi != c.abi || canon != c.canon || ok != c.ok {
			t.Errorf("parseNetwork(%q) = %d %q %v", c.in, abi, canon, ok)
		}
	}
}

func TestSplitAddress(t *testing.T) {
	for _, c := range []struct {
		in   string
		host string
		port int
		err  string
	}{
		{":7000", "", 7000, ""},
		{"server:7000", "server", 7000, ""},
		{"localhost:0", "localhost", 0, ""},
		{"[::1]:65535", "::1", 65535, ""},
		{"server", "", 0, "missing port in address"},
		{"server:65536", "", 0, "invalid port"},
		{"server:-1", "", 0, "invalid port"},
		{"server:http", "", 0, "invalid port"},
		{"server:", "", 0, "invalid port"},
	} {
		host, port, err := splitAddress(c.in)
		if c.err != "" {
			var ae *net.AddrError
			if !errors.As(err, &ae) || ae.Err != c.err {
				t.Errorf("splitAddress(%q) error %v, want AddrError %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || host != c.host || port != c.port {
			t.Errorf("splitAddress(%q) = %q %d %v", c.in, host, port, err)
		}
	}
}

func TestIsLocalHost(t *testing.T) {
	for _, h := range []string{"", "localhost", "me", "127.0.0.1", "127.1.2.3", "::1", "0.0.0.0", "::"} {
		if !isLocalHost(h, "me") {
			t.Errorf("isLocalHost(%q) = false", h)
		}
	}
	for _, h := range []string{"server", "10.0.0.1", "example.com", "ME"} {
		if isLocalHost(h, "me") {
			t.Errorf("isLocalHost(%q) = true", h)
		}
	}
}
