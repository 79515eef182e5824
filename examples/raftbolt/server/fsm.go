package main

// kvFSM is the replicated state machine: a map from key to value. A log
// entry is a JSON command; a snapshot is the whole map as JSON.

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

type command struct {
	Op    string `json:"op"` // "put" or "get"
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// result is what Apply returns for a command: the value read, for "get".
type result struct {
	Value string
	Found bool
}

type kvFSM struct {
	mu   sync.Mutex
	vals map[string]string
}

func newFSM() *kvFSM { return &kvFSM{vals: map[string]string{}} }

func (f *kvFSM) Apply(l *raft.Log) any {
	var c command
	if err := json.Unmarshal(l.Data, &c); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.Op == "put" {
		f.vals[c.Key] = c.Value
		return result{Value: c.Value, Found: true}
	}
	v, ok := f.vals[c.Key]
	return result{Value: v, Found: ok}
}

// get reads the local copy, which may lag the cluster.
func (f *kvFSM) get(key string) result {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vals[key]
	return result{Value: v, Found: ok}
}

func (f *kvFSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := json.Marshal(f.vals)
	return snapshot(data), err
}

func (f *kvFSM) Restore(r io.ReadCloser) error {
	defer r.Close()
	vals := map[string]string{}
	if err := json.NewDecoder(r).Decode(&vals); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vals = vals
	return nil
}

type snapshot []byte

func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s snapshot) Release() {}
