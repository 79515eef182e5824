package main

// api is the node's HTTP interface (see main.go for the routes).

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// applyTimeout bounds how long a request waits for raft; the client
// treats a timeout as an unknown outcome.
const applyTimeout = 2 * time.Second

type api struct {
	raft  *raft.Raft
	fsm   *kvFSM
	reads string
}

func (a *api) serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /leader", func(w http.ResponseWriter, _ *http.Request) {
		_, id := a.raft.LeaderWithID()
		io.WriteString(w, string(id))
	})
	mux.HandleFunc("PUT /k/{key}", a.put)
	mux.HandleFunc("GET /k/{key}", a.get)
	return http.ListenAndServe(addr, mux)
}

// notLeader answers 421 with the leader this node knows, so the client
// can go there next.
func (a *api) notLeader(w http.ResponseWriter) bool {
	if a.raft.State() == raft.Leader {
		return false
	}
	_, id := a.raft.LeaderWithID()
	w.Header().Set("X-Leader", string(id))
	http.Error(w, "not the leader", http.StatusMisdirectedRequest)
	return true
}

func (a *api) put(w http.ResponseWriter, r *http.Request) {
	if a.notLeader(w) {
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.apply(w, command{Op: "put", Key: r.PathValue("key"), Value: string(body)})
}

func (a *api) get(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if a.reads == "local" {
		answer(w, a.fsm.get(key))
		return
	}
	if a.notLeader(w) {
		return
	}
	if a.reads == "leader" {
		answer(w, a.fsm.get(key))
		return
	}
	a.apply(w, command{Op: "get", Key: key})
}

// apply puts c through the raft log and answers with its result once this
// node has applied it.
func (a *api) apply(w http.ResponseWriter, c command) {
	data, err := json.Marshal(c)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f := a.raft.Apply(data, applyTimeout)
	if err := f.Error(); err != nil {
		// Not applied here, but it may still commit: the outcome is unknown.
		http.Error(w, strings.TrimSpace(err.Error()), http.StatusServiceUnavailable)
		return
	}
	res, ok := f.Response().(result)
	if !ok {
		http.Error(w, "bad command", http.StatusInternalServerError)
		return
	}
	answer(w, res)
}

func answer(w http.ResponseWriter, res result) {
	if !res.Found {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	io.WriteString(w, res.Value)
}
