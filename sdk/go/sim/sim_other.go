//go:build !wasip1

package sim

import (
	"net"
	"os"
	"sync"
	"time"
)

// Listen announces on the local network address, as net.Listen does.
// In the simulator, ":7000" listens on port 7000 of this node.
func Listen(network, address string) (net.Listener, error) {
	return net.Listen(network, address)
}

// Dial connects to the address on the named network, as net.Dial does.
// In the simulator, node names resolve: "server:7000" reaches node "server".
func Dial(network, address string) (net.Conn, error) {
	return net.Dial(network, address)
}

// Assert fails the run if cond is false. Outside the simulator it panics.
func Assert(cond bool, msg string) {
	if !cond {
		panic("sim.Assert failed: " + msg)
	}
}

// Always is Assert for a property that must also be reached in some seed.
// Outside the simulator it panics if cond is false.
func Always(cond bool, msg string) {
	if !cond {
		panic("sim.Always failed: " + msg)
	}
}

// Sometimes records a property that must be true in at least one seed of a
// sweep. Outside the simulator it does nothing.
func Sometimes(cond bool, msg string) {}

// Reachable records a property that must be reached in at least one seed.
// Outside the simulator it does nothing.
func Reachable(msg string) {}

// Unreachable fails the run when reached. Outside the simulator it panics.
func Unreachable(msg string) {
	panic("sim.Unreachable reached: " + msg)
}

// Fail fails the run now. Outside the simulator it panics.
func Fail(msg string) {
	panic("sim.Fail: " + msg)
}

func eventuallyFailed(within time.Duration, msg string) {
	panic("sim.Eventually: not true within " + within.String() + ": " + msg)
}

// Budget returns the workload size to use: defaultOps, which the simulator
// may cap while shrinking a failure.
func Budget(defaultOps int) int { return defaultOps }

// QuietFor asks the simulator to stop injecting faults and heal the network
// for d of virtual time, to check liveness. Outside the simulator it does
// nothing.
func QuietFor(d time.Duration) {}

// SetupComplete tells the simulator that setup is done; faults start after
// it. Outside the simulator it does nothing.
func SetupComplete() {}

// Progress tells the simulator that the workload got somewhere (a request
// answered, a step of its plan done). A seed whose workload calls Progress
// somewhere in its code but never reaches it fails as no_progress. Outside
// the simulator it does nothing.
func Progress() {}

var nodeName = sync.OnceValue(func() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "local"
})

// Node returns this node's name as written in the config ("server", "n2").
// Outside the simulator it returns the host name, or "local".
func Node() string { return nodeName() }

// Incarnation returns 1 on a node's first boot and one more on each restart.
// Outside the simulator it returns 1.
func Incarnation() int { return 1 }

// InSimulation reports whether the program runs in seedfall.
func InSimulation() bool { return false }
