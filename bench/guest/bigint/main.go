// bigint: math/big — factorial, a large Fibonacci number, modular exponentiation, and decimal conversion.
package main

import (
	"fmt"
	"hash/crc32"
	"math/big"
)

func main() {
	f := big.NewInt(1)
	for i := int64(2); i <= 6000; i++ {
		f.Mul(f, big.NewInt(i))
	}
	a, b := big.NewInt(0), big.NewInt(1)
	for i := 0; i < 60000; i++ {
		a.Add(a, b)
		a, b = b, a
	}
	m := new(big.Int).Lsh(big.NewInt(1), 1279)
	m.Sub(m, big.NewInt(1)) // Mersenne prime 2^1279-1
	e := new(big.Int).Exp(big.NewInt(3), big.NewInt(1<<40+12345), m)
	for i := 0; i < 600; i++ {
		e.Exp(e, big.NewInt(65537), m)
	}
	q, r := new(big.Int).QuoRem(f, b, new(big.Int))
	s := f.String() + b.String() + e.String() + q.String() + r.String()
	fmt.Printf("bigint: checksum=%08x digits=%d\n", crc32.ChecksumIEEE([]byte(s)), len(s))
}
