//go:build !wasip1

package sim

// Outside the simulator the history records nothing.

func hostOpInvoke(client int, kind int32, key, input string) int64 { return 0 }
func hostOpComplete(id int64, status int32, output string)         {}
func hostTxnBegin(client int) int64                                { return 0 }
func hostTxnAppend(id int64, key string, value int)                {}
func hostTxnRead(id int64, key string, values []int)               {}
func hostTxnEnd(id int64, status int32)                            {}
