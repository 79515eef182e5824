package main

import (
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/raft"
	"seedfall.dev/sdk/sim"
)

// simStream is a raft.StreamLayer over seedfall's own stream sockets
// (sim.Listen and sim.Dial) instead of the Go standard library's TCP,
// for `-transport sim`: the same raft traffic without net_overlay.
type simStream struct {
	net.Listener
	advertise net.Addr
}

func newSimStream(id string, port int) (*simStream, error) {
	ln, err := sim.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return nil, err
	}
	return &simStream{Listener: ln, advertise: &sim.Addr{Net: "tcp", Node: id, Port: port}}, nil
}

// Addr is the address peers dial: this node's name, not the wildcard.
func (s *simStream) Addr() net.Addr { return s.advertise }

// Dial gives up after timeout as a TCP dial would; a connection that is
// established later is closed.
func (s *simStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	type dialed struct {
		conn net.Conn
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		conn, err := sim.Dial("tcp", string(address))
		done <- dialed{conn, err}
	}()
	select {
	case d := <-done:
		return d.conn, d.err
	case <-time.After(timeout):
		go func() {
			if d := <-done; d.conn != nil {
				d.conn.Close()
			}
		}()
		return nil, fmt.Errorf("dial %s: timed out after %v", address, timeout)
	}
}
