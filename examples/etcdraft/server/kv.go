package main

// kvStore is the replicated state machine: a map from key to value. A log
// entry is a JSON proposal; a snapshot is the whole map as JSON.

import (
	"encoding/json"
	"log"
	"sync"
)

// proposal is one log entry: a put of Value at Key. ID lets the node that
// proposed it answer its client once it is applied.
type proposal struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// result is what applying a proposal returns.
type result struct {
	Value string
	Found bool
}

type kvStore struct {
	mu   sync.Mutex
	vals map[string]string
}

func newKVStore() *kvStore { return &kvStore{vals: map[string]string{}} }

func (s *kvStore) apply(p proposal) result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals[p.Key] = p.Value
	return result{Value: p.Value, Found: true}
}

func (s *kvStore) get(key string) result {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vals[key]
	return result{Value: v, Found: ok}
}

func (s *kvStore) snapshot() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(s.vals)
	if err != nil {
		log.Panic(err)
	}
	return b
}

func (s *kvStore) restore(data []byte) {
	vals := map[string]string{}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &vals); err != nil {
			log.Panicf("bad snapshot: %v", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals = vals
}
