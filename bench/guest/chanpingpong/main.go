// chanpingpong: two goroutines pass a counter back and forth over unbuffered channels.
package main

import "fmt"

func main() {
	ping, pong := make(chan int), make(chan int)
	done := make(chan int)
	go func() {
		sum := 0
		for v := range ping {
			sum += v
			pong <- v + 1
		}
		close(pong)
		done <- sum
	}()
	v := 0
	for i := 0; i < 300_000; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	fmt.Printf("chanpingpong: checksum=%d sum=%d\n", v, <-done)
}
