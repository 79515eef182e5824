package main

// transport carries raft messages between nodes: every peer has a queue
// and a sender goroutine that POSTs what is queued, in order and in
// batches (each message as a uvarint length and its protobuf bytes), to
// the peer's /raft. A failed POST reports the peer unreachable to raft
// (and a snapshot in it failed); a full queue drops the message, which
// raft's retries cover, as etcd's rafthttp does.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

const (
	queueLen    = 256
	maxBatch    = 64
	sendTimeout = time.Second
)

type transport struct {
	rn    *raftNode
	peers map[uint64]*peer
}

type peer struct {
	id     uint64
	url    string
	q      chan *raftpb.Message
	client *http.Client
}

func newTransport(rn *raftNode, names []string) *transport {
	t := &transport{rn: rn, peers: map[uint64]*peer{}}
	for i, name := range names {
		id := uint64(i + 1)
		if id == rn.id {
			continue
		}
		t.peers[id] = &peer{
			id:     id,
			url:    fmt.Sprintf("http://%s:%d/raft", name, raftPort),
			q:      make(chan *raftpb.Message, queueLen),
			client: &http.Client{Timeout: sendTimeout},
		}
	}
	return t
}

func (t *transport) start() {
	for id := uint64(1); id <= uint64(len(t.peers)+1); id++ {
		if p, ok := t.peers[id]; ok {
			go t.run(p)
		}
	}
}

func (t *transport) send(ms []*raftpb.Message) {
	for _, m := range ms {
		p, ok := t.peers[m.GetTo()]
		if !ok {
			continue
		}
		select {
		case p.q <- m:
		default:
			t.failed(p, []*raftpb.Message{m})
		}
	}
}

func (t *transport) run(p *peer) {
	for m := range p.q {
		batch := []*raftpb.Message{m}
	drain:
		for len(batch) < maxBatch {
			select {
			case m := <-p.q:
				batch = append(batch, m)
			default:
				break drain
			}
		}
		if err := t.post(p, batch); err != nil {
			t.failed(p, batch)
			continue
		}
		for _, m := range batch {
			if m.GetType() == raftpb.MessageType_MsgSnap {
				t.rn.node.ReportSnapshot(p.id, raft.SnapshotFinish)
			}
		}
	}
}

func (t *transport) failed(p *peer, batch []*raftpb.Message) {
	t.rn.node.ReportUnreachable(p.id)
	for _, m := range batch {
		if m.GetType() == raftpb.MessageType_MsgSnap {
			t.rn.node.ReportSnapshot(p.id, raft.SnapshotFailure)
		}
	}
}

func (t *transport) post(p *peer, batch []*raftpb.Message) error {
	var body bytes.Buffer
	var n [binary.MaxVarintLen64]byte
	for _, m := range batch {
		b, err := proto.Marshal(m)
		if err != nil {
			return err
		}
		body.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
		body.Write(b)
	}
	resp, err := p.client.Post(p.url, "application/octet-stream", &body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("%s: %s", p.url, resp.Status)
	}
	return nil
}

// serve receives messages from the peers and steps them into raft.
func (t *transport) serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /raft", func(w http.ResponseWriter, r *http.Request) {
		br := bufio.NewReader(r.Body)
		for {
			size, err := binary.ReadUvarint(br)
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			b := make([]byte, size)
			if _, err := io.ReadFull(br, b); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			m := &raftpb.Message{}
			if err := proto.Unmarshal(b, m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			t.rn.node.Step(context.TODO(), m)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return http.ListenAndServe(addr, mux)
}
