// Command client is the interleave example's workload: it asks the journal
// to append a batch of entries (which also starts a checkpoint), waits for
// the acknowledgement, then waits for the checkpoint and exits. The
// checkpoint's own check, in the journal, is what fails.
//
// Outside the simulator:
//
//	go run ./client -journal localhost:7000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"seedfall.dev/examples/interleave/internal/redial"
	"seedfall.dev/sdk/sim"
)

var (
	journalAddr = flag.String("journal", "journal:7000", "address of the journal")
	entries     = flag.Int("entries", 64, "entries to append in the batch")
)

func ask(conn net.Conn, in *bufio.Reader, request, want string) string {
	if _, err := fmt.Fprintln(conn, request); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	line, err := in.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, want) {
		fmt.Fprintf(os.Stderr, "client: %s: answer %q, %v\n", request, line, err)
		os.Exit(1)
	}
	return strings.TrimSpace(line)
}

func main() {
	flag.Parse()
	conn := redial.Dial("client", *journalAddr)
	defer conn.Close()
	sim.SetupComplete()
	in := bufio.NewReader(conn)
	fmt.Println(ask(conn, in, fmt.Sprintf("APPEND %d batch", sim.Budget(*entries)), "OK "))
	fmt.Println(ask(conn, in, "WAIT", "CHECKPOINT "))
}
