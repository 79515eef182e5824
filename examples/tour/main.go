// tour shows what the deterministic world controls: the clock, randomness,
// map order, sleeping and the file system. Run it twice with the same seed and
// the output is identical; change the seed and it changes.
package main

import (
	crand "crypto/rand"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"time"
)

func main() {
	start := time.Now()
	fmt.Println("start:", start.UTC().Format(time.RFC3339Nano))

	order := []string{}
	for k := range map[string]int{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5} {
		order = append(order, k)
	}
	fmt.Println("map order:", order)
	fmt.Println("math/rand:", rand.Intn(1000), rand.Intn(1000), rand.Intn(1000))
	b := make([]byte, 8)
	crand.Read(b)
	fmt.Printf("crypto/rand: %x\n", b)

	time.Sleep(10 * time.Second)
	fmt.Println("slept for", time.Since(start).Round(time.Millisecond), "of virtual time")

	dir, err := os.MkdirTemp("", "tour")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(path, []byte("written inside the simulation\n"), 0o644); err != nil {
		panic(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	fmt.Printf("read back from %s: %s", path, data)
}
