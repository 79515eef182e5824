// fmt: fmt.Sprintf / Fprintf with ints, floats, strings, structs and %v of maps.
package main

import (
	"bytes"
	"fmt"
	"hash/crc32"
)

type point struct {
	X, Y int
	Name string
}

func main() {
	var buf bytes.Buffer
	var crc uint32
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	for i := 0; i < 60_000; i++ {
		buf.Reset()
		fmt.Fprintf(&buf, "%d %x %08.3f %q %v %+v %s %-10s|%e\n", i, i*7919, float64(i)/3.0, "str", point{i, -i, "p"}, point{1, 2, "q"}, "plain", "pad", float64(i)*1e10)
		if i%16 == 0 {
			buf.WriteString(fmt.Sprint(m, []int{i, i + 1}, true, 3.5))
		}
		crc = crc32.Update(crc, crc32.IEEETable, buf.Bytes())
	}
	fmt.Printf("fmt: checksum=%08x\n", crc)
}
