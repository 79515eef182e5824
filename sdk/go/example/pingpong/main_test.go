package main

import (
	"testing"

	"seedfall.dev/sdk/sim"
)

func TestPingPongNative(t *testing.T) {
	l, err := sim.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	if err := client(l.Addr().String(), 5); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := <-done; err != nil {
		t.Fatalf("serve after Close: %v", err)
	}
}
