// Floats whose bits the wasm spec leaves to the machine: NaNs made by
// arithmetic, NaN payloads going through it, conversions at the edges.
// The operands come from the arguments so nothing is folded at compile
// time. It prints every result's bits and keeps them in memory too, so the
// trace hash (which covers memory) sees them. Run by cli/tests/exec.rs and,
// under qemu-user on aarch64, by ci/cross/aarch64.sh: the output and the
// trace hash must be the same on every machine.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

var kept []uint64

func show(name string, bits uint64) {
	kept = append(kept, bits)
	fmt.Printf("%-28s %#016x\n", name, bits)
}

func f64(x float64) uint64 { return math.Float64bits(x) }
func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }

func main() {
	// Called as `floats 0 1 -1 inf`.
	arg := func(i int) float64 {
		v, err := strconv.ParseFloat(os.Args[i], 64)
		if err != nil {
			panic(err)
		}
		return v
	}
	zero, one, minusOne, inf := arg(1), arg(2), arg(3), arg(4)
	payload := math.Float64frombits(0xfff0000000000123) // a negative NaN with a payload

	show("0/0", f64(zero/zero))
	show("inf-inf", f64(inf-inf))
	show("inf*0", f64(inf*zero))
	show("sqrt(-1)", f64(math.Sqrt(minusOne)))
	show("payload+1", f64(payload+one))
	show("payload*-1", f64(payload*minusOne))
	show("math.NaN()*2", f64(math.NaN()*2))
	show("min(payload,0)", f64(math.Min(payload, zero)))
	show("float32(0/0)", f32(float32(zero/zero)))
	show("float32(payload)", f32(float32(payload)))
	show("float32 0/0", f32(float32(zero)/float32(zero)))
	show("-payload", f64(-payload))
	show("abs(payload)", f64(math.Abs(payload)))
	show("int64(NaN)", uint64(int64(zero/zero)))
	show("int64(+inf)", uint64(int64(inf)))
	show("int64(-inf)", uint64(int64(-inf)))
	show("int32(1e10)", uint64(int32(1e10*one)))
	show("uint64(-1)", uint64(minusOne))
	show("float64(2^64-1)", f64(float64(uint64(math.MaxUint64)-uint64(zero))))
	show("float32(2^64-1)", f32(float32(uint64(math.MaxUint64)-uint64(zero))))
	show("fma(0.1,10,-1)", f64(math.FMA(0.1*one, 10*one, minusOne)))
	show("pow(-8,1/3)", f64(math.Pow(-8*one, one/3)))
	show("log(-1)", f64(math.Log(minusOne)))
}
