// sha256: crypto/sha256 (plus crc32 and fnv) over a 1 MiB buffer, chained.
package main

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"hash/fnv"
)

func main() {
	buf := make([]byte, 1<<20)
	x := uint32(1)
	for i := range buf {
		x = x*1664525 + 1013904223
		buf[i] = byte(x >> 24)
	}
	var sum [32]byte
	var crc uint32
	h := fnv.New64a()
	for round := 0; round < 48; round++ {
		copy(buf, sum[:])
		sum = sha256.Sum256(buf)
		crc = crc32.Update(crc, crc32.IEEETable, buf)
		h.Write(buf[:1<<18])
	}
	fmt.Printf("sha256: checksum=%x crc=%08x fnv=%016x\n", sum[:8], crc, h.Sum64())
}
