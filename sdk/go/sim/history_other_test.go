//go:build !wasip1

package sim

import (
	"strings"
	"testing"
)

func TestHistoryRecordsNothingOutsideTheSimulator(t *testing.T) {
	if got := panicMessage(t, func() {
		Put(1, "x", "1").Ok()
		Get(2, "x").Returned("1")
		Get(2, "y").Missing()
		Invoke(3, "inc 3").Failed()
		_ = Put(4, "x", "2") // never completed: indeterminate
		tx := Txn(1)
		tx.Append("x", 1)
		tx.Read("y", []int{1, 2})
		tx.Read("z", nil)
		tx.Committed()
		Txn(2).Aborted()
	}); got != "" {
		t.Fatalf("panicked: %q", got)
	}
}

func TestHistoryMisuseIsAPanic(t *testing.T) {
	ended := Txn(1)
	ended.Committed()
	cases := []struct {
		name, want string
		f          func()
	}{
		{"Op completed twice", "completed twice", func() { o := Get(1, "x"); o.Missing(); o.Returned("v") }},
		{"Op failed after Ok", "completed twice", func() { o := Put(1, "x", "v"); o.Ok(); o.Failed() }},
		{"Tx ended twice", "ended twice", func() { tx := Txn(1); tx.Committed(); tx.Aborted() }},
		{"Tx appended after its end", "after it ended", func() { ended.Append("x", 1) }},
		{"Tx read after its end", "after it ended", func() { ended.Read("x", nil) }},
		{"negative client", ">= 0", func() { Put(-1, "x", "v") }},
		{"negative Txn client", ">= 0", func() { Txn(-1) }},
	}
	for _, c := range cases {
		if got := panicMessage(t, c.f); !strings.Contains(got, c.want) {
			t.Errorf("%s: panic %q, want one containing %q", c.name, got, c.want)
		}
	}
}
