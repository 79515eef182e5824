// Command waiter is busyloop's workload: it waits a second of virtual time
// and exits 0, so a run fails only if a service does.
package main

import "time"

func main() {
	time.Sleep(time.Second)
}
