package workerpool

import (
	"fmt"
	"testing"
)

func TestEveryJobDoneOnce(t *testing.T) {
	var jobs []Job
	for i := 0; i < 12; i++ {
		jobs = append(jobs, Job{ID: i, Input: []byte(fmt.Sprint("job ", i)), Rounds: 20 + 15*(i%4)})
	}
	results := Run(4, jobs)
	seen := map[int]bool{}
	for _, r := range results {
		if seen[r.ID] {
			t.Fatalf("job %d done twice", r.ID)
		}
		seen[r.ID] = true
		if want := process(jobs[r.ID]); r != want {
			t.Fatalf("job %d: wrong digest", r.ID)
		}
	}
	if len(seen) != len(jobs) {
		t.Fatalf("%d of %d jobs done", len(seen), len(jobs))
	}
}
