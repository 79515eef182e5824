// bigdiff: math/big arithmetic on pseudo-random numbers of 0 to 40 words,
// summarized as one FNV-1a per operation. It covers the word-vector loops
// seedfall has intrinsics for (addVV, subVV, mulAddVWW, addMulVVWW) through
// Add, Sub, Mul, Quo/Rem, Exp, Sqrt and decimal conversion, with results
// that alias their operands (z.Add(z, z), z.Sub(z, y), z.Mul(z, z)). The same
// output natively, and under seedfall with and without its intrinsics, is
// the differential test of those intrinsics (cli/tests/intrinsics.rs;
// ci/cross/aarch64.sh passes a smaller count than the default 4,000 as the
// first argument).
package main

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
)

func random(rng *rand.Rand) *big.Int {
	words := rng.IntN(41)
	b := make([]byte, 8*words+rng.IntN(8))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	// Runs of all-ones and all-zeros make carries and borrows ripple.
	if rng.IntN(4) == 0 && len(b) > 0 {
		fill := byte(0xff * rng.IntN(2))
		for i := rng.IntN(len(b)); i < len(b); i++ {
			b[i] = fill
		}
	}
	x := new(big.Int).SetBytes(b)
	if rng.IntN(3) == 0 {
		x.Neg(x)
	}
	return x
}

func main() {
	rng := rand.New(rand.NewPCG(3, 4))
	sums := map[string]uint64{}
	order := []string{"add", "sub", "mul", "quo", "rem", "exp", "sqrt", "string", "alias"}
	record := func(op string, x *big.Int) {
		h := fnv.New64a()
		h.Write([]byte(fmt.Sprint(sums[op], " ", x.Sign(), " ")))
		h.Write(x.Bytes())
		sums[op] = h.Sum64()
	}
	count := 4000
	if len(os.Args) > 1 {
		count, _ = strconv.Atoi(os.Args[1])
	}
	for i := 0; i < count; i++ {
		x, y := random(rng), random(rng)
		record("add", new(big.Int).Add(x, y))
		record("sub", new(big.Int).Sub(x, y))
		record("mul", new(big.Int).Mul(x, y))
		if y.Sign() != 0 {
			q, r := new(big.Int).QuoRem(x, y, new(big.Int))
			record("quo", q)
			record("rem", r)
		}
		if i%20 == 0 {
			m := new(big.Int).Abs(random(rng))
			if m.Sign() != 0 {
				record("exp", new(big.Int).Exp(new(big.Int).Abs(x), big.NewInt(int64(rng.IntN(200))), m))
			}
			record("sqrt", new(big.Int).Sqrt(new(big.Int).Abs(x)))
			s, _ := new(big.Int).SetString(x.String(), 10)
			record("string", s)
		}
		z := new(big.Int).Set(x)
		z.Add(z, z)
		z.Sub(z, y)
		z.Mul(z, z)
		z.Add(z, z.Lsh(z, uint(rng.IntN(130))))
		record("alias", z)
	}
	for _, op := range order {
		fmt.Printf("%s %016x\n", op, sums[op])
	}
}
