// maps: map[uint64]uint64 and map[string]int insert, lookup, delete, iterate.
package main

import (
	"fmt"
	"strconv"
)

func main() {
	x := uint64(11)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	var check uint64
	for round := 0; round < 1; round++ {
		m := make(map[uint64]uint64)
		for i := 0; i < 500_000; i++ {
			m[next()%1_000_000] += uint64(i)
		}
		hits := 0
		for i := 0; i < 1_000_000; i++ {
			if v, ok := m[next()%1_000_000]; ok {
				hits++
				check += v
			}
		}
		for i := 0; i < 200_000; i++ {
			delete(m, next()%1_000_000)
		}
		sum := uint64(0)
		for k, v := range m {
			sum += k ^ v
		}
		check = check*31 + sum + uint64(hits) + uint64(len(m))
		s := make(map[string]int)
		for i := 0; i < 200_000; i++ {
			s[strconv.FormatUint(next()%300_000, 16)]++
		}
		for i := 0; i < 200_000; i++ {
			check += uint64(s[strconv.FormatUint(uint64(i), 16)])
		}
		check += uint64(len(s))
	}
	fmt.Printf("maps: checksum=%016x\n", check)
}
