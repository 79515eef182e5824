// Command buyers is the workload of the interleave example's ticket race:
// several buyers connect to the box office before the sale opens, each asks
// for one ticket, and the workload exits when every buyer has an answer.
// The box office's own assertion is what fails.
//
// Outside the simulator:
//
//	go run ./buyers -tickets localhost:7000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"strings"
	"sync"

	"seedfall.dev/examples/interleave/internal/redial"
	"seedfall.dev/sdk/sim"
)

var (
	ticketsAddr = flag.String("tickets", "tickets:7000", "address of the box office")
	buyers      = flag.Int("buyers", 4, "buyers, each on its own connection")
)

func buy(name string) string {
	conn := redial.Dial("buyers", *ticketsAddr)
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "BUY %s\n", name); err != nil {
		return "error: " + err.Error()
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(line)
}

func main() {
	flag.Parse()
	sim.SetupComplete()
	answers := make([]string, *buyers)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = buy(fmt.Sprintf("buyer%d", i+1)) })
	}
	wg.Wait()
	for i, answer := range answers {
		fmt.Printf("buyer%d: %s\n", i+1, answer)
		sim.Progress()
	}
}
