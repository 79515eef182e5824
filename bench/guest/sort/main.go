// sort: slices.Sort on ints, sort.Strings, sort.Slice and sort.SliceStable on structs.
package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

type rec struct {
	key   uint32
	name  string
	order int
}

func main() {
	x := uint32(3)
	next := func() uint32 { x = x*1664525 + 1013904223; return x }
	var check uint64
	for round := 0; round < 1; round++ {
		ints := make([]int, 1_000_000)
		for i := range ints {
			ints[i] = int(next())
		}
		slices.Sort(ints)
		check = check*31 + uint64(ints[len(ints)/2])
		strs := make([]string, 200_000)
		for i := range strs {
			strs[i] = strconv.FormatUint(uint64(next()), 36)
		}
		sort.Strings(strs)
		check = check*31 + uint64(len(strs[len(strs)/3]))
		recs := make([]rec, 200_000)
		for i := range recs {
			recs[i] = rec{key: next(), name: strs[i], order: i}
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].key < recs[j].key })
		check = check*31 + uint64(recs[12345].order)
		stable := recs[:20_000]
		for i := range stable {
			stable[i].key %= 100
		}
		sort.SliceStable(stable, func(i, j int) bool { return stable[i].key < stable[j].key })
		check = check*31 + uint64(stable[1234].order)
	}
	fmt.Printf("sort: checksum=%016x\n", check)
}
