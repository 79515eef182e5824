// Package redial is the interleave workloads' connection to a node that may
// not be listening yet: it retries for a second of virtual time.
package redial

import (
	"fmt"
	"net"
	"os"
	"time"

	"seedfall.dev/sdk/sim"
)

// Dial connects to addr, retrying every 10 ms; after 100 refusals the
// program exits, naming itself as who.
func Dial(who, addr string) net.Conn {
	for tries := 0; ; tries++ {
		conn, err := sim.Dial("tcp", addr)
		if err == nil {
			return conn
		}
		if tries == 100 {
			fmt.Fprintf(os.Stderr, "%s: %v\n", who, err)
			os.Exit(1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
