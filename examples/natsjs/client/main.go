// Command client is natsjs's workload, written as a real JetStream client
// would be with nats.go v1.53.1: it creates the stream EVENTS (file
// storage, -replicas), publishes for -for and waits for every publish's
// acknowledgement, remembering each message the server acknowledged. When a
// publish fails it looks the stream up and re-creates it if the server no
// longer has it, as an application does after a server restart. After the
// last publish the faults stop (sim.QuietFor) and every acknowledged
// message must still be in the stream; if not, the run fails with
//
//	stream EVENTS lost after restart, N acknowledged messages gone
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"seedfall.dev/sdk/sim"
)

const stream = "EVENTS"

func main() {
	servers := flag.String("servers", "n1", "comma-separated server nodes")
	replicas := flag.Int("replicas", 1, "the stream's replicas")
	runFor := flag.Duration("for", 20*time.Second, "how long to publish")
	settle := flag.Duration("settle", 15*time.Second, "how long the faults stop before the check")
	setup := flag.String("setup", "connect", "what happens before the faults start: connect, or connect and create the stream (stream)")
	onMissing := flag.String("on-missing", "fail", "a stream missing after acknowledged publishes: fail, or recreate it")
	flag.Parse()
	var urls []string
	for _, s := range strings.Split(*servers, ",") {
		urls = append(urls, "nats://"+s+":4222")
	}
	var reconnected atomic.Bool
	nc, err := nats.Connect(strings.Join(urls, ","),
		nats.ReconnectHandler(func(*nats.Conn) { reconnected.Store(true) }),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.Timeout(2*time.Second))
	if err != nil {
		fatalf("connect: %v", err)
	}
	js, err := nc.JetStream(nats.MaxWait(2 * time.Second))
	if err != nil {
		fatalf("jetstream: %v", err)
	}
	cfg := &nats.StreamConfig{Name: stream, Subjects: []string{"events.>"}, Storage: nats.FileStorage, Replicas: *replicas}
	if *onMissing != "fail" && *onMissing != "recreate" {
		fatalf("unknown -on-missing %q: use fail or recreate", *onMissing)
	}
	w := &workload{js: js, cfg: cfg, recreate: *onMissing == "recreate"}
	sim.Eventually(20*time.Second, nc.IsConnected, "the client connects to a server")
	switch *setup {
	case "connect":
	case "stream":
		sim.Eventually(30*time.Second, w.ensureStream, "the stream is created before the faults start")
	default:
		fatalf("unknown -setup %q: use connect or stream", *setup)
	}
	sim.SetupComplete()
	end := time.Now().Add(*runFor)
	ackedAfterReconnect := false
	for i := 1; time.Now().Before(end); i++ {
		if !w.ready && !w.ensureStream() {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		payload := fmt.Sprintf("m-%d", i)
		ack, err := js.Publish("events.e", []byte(payload))
		if err == nil && ack.Stream == stream {
			w.acked = append(w.acked, payload)
			ackedAfterReconnect = ackedAfterReconnect || reconnected.Load()
		} else {
			w.ready = false
		}
		time.Sleep(time.Duration(10+rand.IntN(30)) * time.Millisecond)
	}
	fmt.Printf("published until %v: %d acknowledged, stream created %d times\n", *runFor, len(w.acked), w.created)
	sim.Sometimes(ackedAfterReconnect, "a publish is acknowledged after the client reconnected")

	sim.QuietFor(*settle)
	var have map[string]bool
	found := false
	sim.Eventually(*settle, func() bool {
		have, found = w.readAll()
		return have != nil
	}, "a server answers for the stream after the faults end")
	if !found && len(w.acked) > 0 {
		w.lost()
	}
	gone := 0
	first := ""
	for _, p := range w.acked {
		if !have[p] {
			if gone == 0 {
				first = p
			}
			gone++
		}
	}
	if gone > 0 {
		msg := fmt.Sprintf("stream %s lost %d acknowledged messages", stream, gone)
		fmt.Fprintf(os.Stderr, "natsjs client: %s (first %s; %d acknowledged, %d in the stream, created %d times)\n",
			msg, first, len(w.acked), len(have), w.created)
		sim.Fail(msg)
		os.Exit(1)
	}
	fmt.Printf("all %d acknowledged messages are in the stream (%d messages)\n", len(w.acked), len(have))
}

type workload struct {
	js       nats.JetStreamContext
	cfg      *nats.StreamConfig
	recreate bool
	ready    bool
	created  int
	acked    []string
}

// ensureStream looks the stream up and creates it if the server has none.
func (w *workload) ensureStream() bool {
	_, err := w.js.StreamInfo(stream)
	if err == nil {
		w.ready = true
		return true
	}
	if !errors.Is(err, nats.ErrStreamNotFound) {
		return false
	}
	if len(w.acked) > 0 && !w.recreate {
		w.lost()
	}
	if _, err := w.js.AddStream(w.cfg); err != nil {
		return false
	}
	w.created++
	if w.created > 1 {
		fmt.Printf("stream %s was missing: re-created it (%d acknowledged before)\n", stream, len(w.acked))
	}
	w.ready = true
	return true
}

// readAll is the payloads of every message in the stream (nil if no
// server answers), and whether the stream exists.
func (w *workload) readAll() (map[string]bool, bool) {
	info, err := w.js.StreamInfo(stream)
	if errors.Is(err, nats.ErrStreamNotFound) {
		return map[string]bool{}, false
	}
	if err != nil {
		return nil, false
	}
	have := map[string]bool{}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := w.js.GetMsg(stream, seq)
		if errors.Is(err, nats.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, false
		}
		have[string(m.Data)] = true
	}
	return have, true
}

// lost fails the run: the server has no stream after acknowledging
// messages into it.
func (w *workload) lost() {
	msg := fmt.Sprintf("stream %s lost after restart, %d acknowledged messages gone", stream, len(w.acked))
	fmt.Fprintf(os.Stderr, "natsjs client: %s (the server answers \"stream not found\"; created %d times)\n", msg, w.created)
	sim.Fail(msg)
	os.Exit(1)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "natsjs client: "+format+"\n", args...)
	os.Exit(1)
}
