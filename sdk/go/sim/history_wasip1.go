//go:build wasip1

package sim

import (
	"runtime"
	"syscall"
	"unsafe"
)

// The history imports of the "seedfall" module (docs/sdk-abi.md). A
// negative result is a host refusal, which only a bug in this package can
// cause: it panics rather than record a history that is silently wrong.

//go:wasmimport seedfall op_invoke
//go:noescape
func opInvokeImport(client int32, kind int32, key unsafe.Pointer, keyLen int32, input unsafe.Pointer, inputLen int32) int64

//go:wasmimport seedfall op_complete
//go:noescape
func opCompleteImport(id int64, status int32, output unsafe.Pointer, outputLen int32) int32

//go:wasmimport seedfall txn_begin
func txnBeginImport(client int32) int64

//go:wasmimport seedfall txn_append
//go:noescape
func txnAppendImport(id int64, key unsafe.Pointer, keyLen int32, value int64) int32

//go:wasmimport seedfall txn_read
//go:noescape
func txnReadImport(id int64, key unsafe.Pointer, keyLen int32, values unsafe.Pointer, count int32) int32

//go:wasmimport seedfall txn_end
func txnEndImport(id int64, status int32) int32

func refused(call string, res int64) {
	if res < 0 {
		panic("sim: seedfall." + call + " failed: " + syscall.Errno(-res).Error())
	}
}

func hostOpInvoke(client int, kind int32, key, input string) int64 {
	id := opInvokeImport(int32(client), kind, unsafe.Pointer(unsafe.StringData(key)), int32(len(key)),
		unsafe.Pointer(unsafe.StringData(input)), int32(len(input)))
	runtime.KeepAlive(key)
	runtime.KeepAlive(input)
	refused("op_invoke", id)
	return id
}

func hostOpComplete(id int64, status int32, output string) {
	res := opCompleteImport(id, status, unsafe.Pointer(unsafe.StringData(output)), int32(len(output)))
	runtime.KeepAlive(output)
	refused("op_complete", int64(res))
}

func hostTxnBegin(client int) int64 {
	id := txnBeginImport(int32(client))
	refused("txn_begin", id)
	return id
}

func hostTxnAppend(id int64, key string, value int) {
	res := txnAppendImport(id, unsafe.Pointer(unsafe.StringData(key)), int32(len(key)), int64(value))
	runtime.KeepAlive(key)
	refused("txn_append", int64(res))
}

func hostTxnRead(id int64, key string, values []int) {
	// int is 64 bits on wasm: the slice is already the ABI's array of i64.
	res := txnReadImport(id, unsafe.Pointer(unsafe.StringData(key)), int32(len(key)),
		unsafe.Pointer(unsafe.SliceData(values)), int32(len(values)))
	runtime.KeepAlive(key)
	runtime.KeepAlive(values)
	refused("txn_read", int64(res))
}

func hostTxnEnd(id int64, status int32) {
	refused("txn_end", int64(txnEndImport(id, status)))
}
