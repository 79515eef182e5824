// nats1: one embedded nats-server v2.15.2 with JetStream on file storage
// under -data (every write fsynced: SyncAlways), a client connected in
// process (no network), a file-backed stream, then -n publishes each waited
// for until JetStream acknowledges it. The guest CPU of a JetStream node and
// its boot, runnable natively, under seedfall exec and under wazero alike.
// With -n 0 it boots the server, creates the stream and exits: the boot;
// with -n -1 it exits at the start of main, so the difference between the
// two is nats-server's own start.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

func main() {
	n := flag.Int("n", 1000, "messages to publish (-1: exit at once, the Go runtime's start alone)")
	data := flag.String("data", "/data", "JetStream's store directory (emptied first)")
	flag.Parse()
	if *n < 0 {
		return
	}
	if err := os.RemoveAll(*data); err != nil {
		fatalf("empty %s: %v", *data, err)
	}
	s, err := server.NewServer(&server.Options{
		ServerName: "nats1", DontListen: true, JetStream: true, StoreDir: *data, SyncAlways: true, NoSigs: true,
	})
	if err != nil {
		fatalf("new server: %v", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		fatalf("not ready for connections within 10s")
	}
	nc, err := nats.Connect("", nats.InProcessServer(s))
	if err != nil {
		fatalf("connect: %v", err)
	}
	js, err := nc.JetStream()
	if err != nil {
		fatalf("jetstream: %v", err)
	}
	if _, err := js.AddStream(&nats.StreamConfig{Name: "EVENTS", Subjects: []string{"events"}, Storage: nats.FileStorage}); err != nil {
		fatalf("add stream: %v", err)
	}
	var last uint64
	for i := 0; i < *n; i++ {
		ack, err := js.Publish("events", []byte(fmt.Sprintf("message %d", i)))
		if err != nil {
			fatalf("publish %d: %v", i, err)
		}
		last = ack.Sequence
	}
	info, err := js.StreamInfo("EVENTS")
	if err != nil {
		fatalf("stream info: %v", err)
	}
	fmt.Printf("published %d, last sequence %d, stream holds %d\n", *n, last, info.State.Msgs)
	nc.Close()
	s.Shutdown()
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nats1: "+format+"\n", args...)
	os.Exit(1)
}
