// Package workerpool runs jobs on a fixed number of worker goroutines and
// collects their results. Its test is correct under every interleaving;
// `seedfall test -novelty` counts how many distinct goroutine schedules
// random preemption drives it through.
package workerpool

import (
	"crypto/sha256"
	"sync"
)

// Job is a piece of work: hash Input Rounds times.
type Job struct {
	ID     int
	Input  []byte
	Rounds int
}

// Result is a job's digest.
type Result struct {
	ID     int
	Digest [32]byte
}

func process(j Job) Result {
	d := sha256.Sum256(j.Input)
	for i := 1; i < j.Rounds; i++ {
		d = sha256.Sum256(d[:])
	}
	return Result{ID: j.ID, Digest: d}
}

// Run processes jobs on workers goroutines; results come back in any order.
func Run(workers int, jobs []Job) []Result {
	in := make(chan Job)
	out := make(chan Result, len(jobs))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				out <- process(j)
			}
		}()
	}
	for _, j := range jobs {
		in <- j
	}
	close(in)
	wg.Wait()
	close(out)
	results := make([]Result, 0, len(jobs))
	for r := range out {
		results = append(results, r)
	}
	return results
}
