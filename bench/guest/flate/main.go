// flate: compress/flate compress and decompress of generated text.
package main

import (
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
)

func main() {
	words := []string{"seedfall", "deterministic", "simulation", "wasm", "goroutine", "the", "a", "of", "cranelift", "preempt", "cache", "node", "virtual", "time", "seed"}
	x := uint32(5)
	var text bytes.Buffer
	for text.Len() < 4<<20 {
		x = x*1664525 + 1013904223
		text.WriteString(words[(x>>16)%uint32(len(words))])
		if x&0x700 == 0 {
			fmt.Fprintf(&text, " %d\n", x%10000)
		} else {
			text.WriteByte(' ')
		}
	}
	src := text.Bytes()
	var crc uint32
	total := 0
	for _, level := range []int{1, 6} {
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, level)
		w.Write(src)
		w.Close()
		crc = crc32.Update(crc, crc32.IEEETable, out.Bytes())
		total += out.Len()
		for i := 0; i < 2; i++ {
			back, err := io.ReadAll(flate.NewReader(bytes.NewReader(out.Bytes())))
			if err != nil || !bytes.Equal(back, src) {
				panic("round trip")
			}
		}
	}
	fmt.Printf("flate: checksum=%08x compressed=%d\n", crc, total)
}
