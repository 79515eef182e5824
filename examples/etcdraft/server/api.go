package main

// api is the node's HTTP interface (see main.go for the routes).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// requestTimeout bounds how long a request waits for raft; the client
// treats a timeout as an unknown outcome.
const requestTimeout = 2 * time.Second

type api struct {
	rn         *raftNode
	localReads bool
}

func (a *api) serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /leader", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, a.rn.leader())
	})
	mux.HandleFunc("PUT /k/{key}", a.put)
	mux.HandleFunc("GET /k/{key}", a.get)
	return http.ListenAndServe(addr, mux)
}

// requestID is unique across nodes and incarnations (the random source is
// the simulator's, so it is still the same in every replay of a seed).
func (a *api) requestID() string {
	return fmt.Sprintf("%d.%016x", a.rn.id, rand.Uint64())
}

func (a *api) put(w http.ResponseWriter, r *http.Request) {
	if !a.rn.isLeader() {
		w.Header().Set("X-Leader", a.rn.leader())
		http.Error(w, "not the leader", http.StatusMisdirectedRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	res, err := a.rn.propose(ctx, proposal{ID: a.requestID(), Key: r.PathValue("key"), Value: string(body)})
	if err != nil {
		// Not applied here yet, but it may still commit: the outcome is unknown.
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	answer(w, res)
}

func (a *api) get(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if !a.localReads {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		if err := a.rn.linearizableRead(ctx, a.requestID()); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				// Typically: no leader to confirm the read index.
				w.Header().Set("X-Leader", a.rn.leader())
			}
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	answer(w, a.rn.kv.get(key))
}

func answer(w http.ResponseWriter, res result) {
	if !res.Found {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	io.WriteString(w, res.Value)
}
