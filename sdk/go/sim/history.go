package sim

import "sync/atomic"

// The history API: a workload records each operation it sends to the
// system under test, and how it completed, so that the simulator can check
// the whole history after the run against the config's "linearizable" model
// (Put, Get, Invoke) or "isolation" level (Txn). Invocation and completion
// times are the simulator's virtual times at the calls, so concurrency is
// exact. Outside the simulator these record nothing, but completing an Op or
// ending a Tx twice still panics, so a workload's mistakes show in native
// tests too.

// Op kinds of the ABI (docs/sdk-abi.md).
const (
	opPut    int32 = 0
	opGet    int32 = 1
	opInvoke int32 = 2
)

// Completion statuses of the ABI.
const (
	opOk       int32 = 0
	opReturned int32 = 1
	opMissing  int32 = 2
	opFailed   int32 = 3
)

// Transaction end statuses of the ABI.
const (
	txnCommitted int32 = 0
	txnAborted   int32 = 1
)

// An Op is one invoked operation of the history. An Op never completed
// (timeout, crash, lost reply) is indeterminate: it may take effect any time
// after its invocation, or never.
type Op struct {
	id   int64
	done atomic.Bool
}

// Put invokes a write of value to key by client. Call it before sending
// the request.
func Put(client int, key, value string) *Op { return invoke(client, opPut, key, value) }

// Get invokes a read of key by client.
func Get(client int, key string) *Op { return invoke(client, opGet, key, "") }

// Invoke invokes an operation of the configured model on its single
// object, written in the model's grammar ("inc 3", "enq x", "deq", "add x").
func Invoke(client int, input string) *Op { return invoke(client, opInvoke, "", input) }

func invoke(client int, kind int32, key, input string) *Op {
	if client < 0 {
		panic("sim: a history client is a number >= 0")
	}
	return &Op{id: hostOpInvoke(client, kind, key, input)}
}

// Ok completes the operation without output (an acknowledged Put).
func (o *Op) Ok() { o.complete(opOk, "") }

// Returned completes the operation with output: for Get the value read, for
// Invoke the model's output.
func (o *Op) Returned(output string) { o.complete(opReturned, output) }

// Missing completes a Get that found no such key.
func (o *Op) Missing() { o.complete(opMissing, "") }

// Failed says the operation definitely did not take effect (it was
// rejected): it is dropped from the history.
func (o *Op) Failed() { o.complete(opFailed, "") }

func (o *Op) complete(status int32, output string) {
	if !o.done.CompareAndSwap(false, true) {
		panic("sim: Op completed twice")
	}
	hostOpComplete(o.id, status, output)
}

// A Tx is a transaction over list-append keys (Elle's model): each key holds
// a list of integers; a transaction appends to lists and reads whole lists.
// Appended values must be unique per key. A Tx neither Committed nor Aborted
// is indeterminate.
type Tx struct {
	id    int64
	ended atomic.Bool
}

// Txn begins a transaction of client.
func Txn(client int) *Tx {
	if client < 0 {
		panic("sim: a history client is a number >= 0")
	}
	return &Tx{id: hostTxnBegin(client)}
}

// Append records that the transaction appends value to the list at key.
func (t *Tx) Append(key string, value int) {
	t.live()
	hostTxnAppend(t.id, key, value)
}

// Read records that the transaction read the list values at key.
func (t *Tx) Read(key string, values []int) {
	t.live()
	hostTxnRead(t.id, key, values)
}

// Committed ends the transaction: it committed.
func (t *Tx) Committed() { t.end(txnCommitted) }

// Aborted ends the transaction: it definitely did not commit.
func (t *Tx) Aborted() { t.end(txnAborted) }

func (t *Tx) live() {
	if t.ended.Load() {
		panic("sim: Tx used after it ended")
	}
}

func (t *Tx) end(status int32) {
	if !t.ended.CompareAndSwap(false, true) {
		panic("sim: Tx ended twice")
	}
	hostTxnEnd(t.id, status)
}
