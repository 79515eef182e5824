// Package sim is the guest side of seedfall, a deterministic simulator for Go
// services: unmodified Go programs compiled for GOOS=wasip1 GOARCH=wasm run as
// nodes of a simulated cluster that shares one virtual clock, a simulated
// network, per-node disks and a seeded fault schedule.
//
// A program talks to the simulator only through this package. Built for
// wasip1, every function calls the host through the "seedfall" wasm import
// module (docs/sdk-abi.md). Built for any other platform, every function falls
// back to plain behaviour, so the same service builds, runs and tests normally:
//
//	call             in seedfall                               elsewhere
//	Listen           host socket for this node's port          net.Listen
//	Dial             host connection; node names resolve       net.Dial
//	Assert           false fails the run                       panics if false
//	Always           like Assert; must be reached in a seed    panics if false
//	Sometimes        must be true in at least one seed         nothing
//	Reachable        must be reached in at least one seed      nothing
//	Unreachable      reaching it fails the run                 panics
//	Fail             fails the run now                         panics
//	Eventually       polls cond in virtual time; fails late    polls in real time; panics late
//	Budget           workload size; shrinking caps it          the default
//	QuietFor         stop faults, heal the network for d       nothing
//	SetupComplete    faults start after this                   nothing
//	Progress         the workload got somewhere (no_progress)  nothing
//	Node             this node's name ("server", "n2")         os.Hostname() or "local"
//	Incarnation      1 on first boot, +1 per restart           1
//	InSimulation     true                                      false
//	Put Get Invoke   a history operation, virtual times        nothing recorded
//	Txn              a list-append transaction of the history  nothing recorded
//
// # Properties
//
// The message passed to Assert, Always, Sometimes, Reachable, Unreachable,
// Fail and Eventually is the property's identity: every call with the same
// message, from any call site, is the same property, and the simulator's
// property table counts seeds by message. Use constant messages ("acked write
// is readable") and print details separately; a message built with
// fmt.Sprintf creates a new property per distinct value.
//
// The simulator learns of a property when a call reaches it, so Always,
// Sometimes and Reachable report even when their condition holds.
//
// # History
//
// Put, Get and Invoke record an operation of the workload's history when it
// is invoked; Ok, Returned, Missing and Failed complete it. An Op never
// completed is indeterminate: it may take effect any time after its
// invocation, or never. Txn records a transaction over list-append keys
// (Append, Read), ended by Committed or Aborted. After the run the simulator
// checks the history against the config's "linearizable" model and
// "isolation" level. Completing an Op or ending a Tx twice panics, in and out
// of the simulator.
//
// # Networking
//
// Listen and Dial return ordinary net.Listener and net.Conn values built by
// the standard library's net.FileListener and net.FileConn over sockets the
// host provides, so reads, writes, deadlines and Accept go through Go's own
// poller. Node names resolve: Dial("tcp", "server:7000") reaches whatever node
// "server" has listening on port 7000. Addresses are *Addr values that print
// as "node:port". Only TCP is supported by Listen; Dial also accepts "udp".
//
// Connections are wrappers around *net.TCPConn; use interface assertions such
// as interface{ CloseWrite() error } rather than asserting *net.TCPConn.
package sim
