package main

import "testing"

// `seedfall test` builds this with compat_overlay's module files too.
func TestBoltRoundTrip(t *testing.T) {
	if err := boltRoundTrip(); err != nil {
		t.Fatal(err)
	}
}
