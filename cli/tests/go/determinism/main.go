// determinism prints everything a program could observe that is not fixed by
// its code: the clock, map iteration order, math/rand, crypto/rand, and how
// goroutines interleave around timers.
package main

import (
	crand "crypto/rand"
	"fmt"
	"math/rand"
	"sync"
	"time"
)

func main() {
	fmt.Println("now:", time.Now().UnixNano())
	m := map[int]bool{}
	for i := 0; i < 20; i++ {
		m[i] = true
	}
	order := []int{}
	for k := range m {
		order = append(order, k)
	}
	fmt.Println("map:", order)
	fmt.Println("math/rand:", rand.Int63(), rand.Intn(100))
	b := make([]byte, 16)
	crand.Read(b)
	fmt.Printf("crypto/rand: %x\n", b)
	var mu sync.Mutex
	var wg sync.WaitGroup
	events := []int{}
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(rand.Intn(5)) * time.Millisecond)
			mu.Lock()
			events = append(events, i)
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	fmt.Println("goroutines:", events)
	start := time.Now()
	time.Sleep(10 * time.Second)
	fmt.Println("slept:", time.Since(start) >= 10*time.Second)
	fmt.Println("now:", time.Now().UnixNano())
}
