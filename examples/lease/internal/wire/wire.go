// Package wire is the line protocol of the lease example: one request line,
// one answer line, over a connection per request.
package wire

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"seedfall.dev/sdk/sim"
)

// Call sends one request line to addr and returns the answer line, or an
// error if no answer came within timeout.
func Call(addr, request string, timeout time.Duration) (string, error) {
	conn, err := sim.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := fmt.Fprintf(conn, "%s\n", request); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// Serve accepts connections on addr and answers each request line with handle.
func Serve(addr string, handle func(request string) string) error {
	l, err := sim.Listen("tcp", addr)
	if err != nil {
		return err
	}
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer conn.Close()
			r := bufio.NewReader(conn)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				fmt.Fprintf(conn, "%s\n", handle(strings.TrimSpace(line)))
			}
		}()
	}
}
