// Package kvclient is the workload shared by the raft examples (raftkv,
// etcdraft): clients of a key-value service whose nodes answer HTTP on port
// 8000 (PUT and GET /k/<key>, GET /leader), checked for linearizability
// (Lin) or for lost acknowledged writes (Durable). It knows nothing of the
// raft library behind the service.
package kvclient

// kvClient sends one client's key-value requests to the node it believes
// is the leader, and moves on to the leader a node names (421 with
// X-Leader) or to the next node when it cannot tell.

import (
	"io"
	"math/rand"
	"net/http"
	"strings"
	"time"
)

// outcome is what a request's answer says about its effect.
type outcome int

const (
	applied  outcome = iota // 200: done; the body is the value
	missing                 // 404: a get of a key never set
	rejected                // 421: not the leader, so certainly not applied
	unknown                 // timeout, lost connection, 503: it may or may not have applied
)

// requestTimeout is longer than the server's apply timeout (2 s), so a
// slow commit comes back as 503 rather than being cut off here.
const requestTimeout = 3 * time.Second

type kvClient struct {
	nodes  []string
	leader string
	http   *http.Client
}

func newKVClient(nodes []string, first int) *kvClient {
	return &kvClient{nodes: nodes, leader: nodes[first%len(nodes)], http: &http.Client{Timeout: requestTimeout}}
}

func (c *kvClient) put(key, value string) outcome {
	out, _ := c.do(http.MethodPut, key, value)
	return out
}

func (c *kvClient) get(key string) (outcome, string) {
	return c.do(http.MethodGet, key, "")
}

func (c *kvClient) do(method, key, value string) (outcome, string) {
	req, err := http.NewRequest(method, "http://"+c.leader+":8000/k/"+key, strings.NewReader(value))
	if err != nil {
		panic(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.next("")
		return unknown, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		c.next("")
		return unknown, ""
	case resp.StatusCode == http.StatusOK:
		return applied, string(body)
	case resp.StatusCode == http.StatusNotFound:
		return missing, ""
	case resp.StatusCode == http.StatusMisdirectedRequest:
		c.next(resp.Header.Get("X-Leader"))
		return rejected, ""
	default:
		c.next("")
		return unknown, ""
	}
}

// askAnyNode sends the next request to a random node.
func (c *kvClient) askAnyNode() {
	c.leader = c.nodes[rand.Intn(len(c.nodes))]
}

// next picks where the following request goes: the leader a node named,
// else the node after the current one.
func (c *kvClient) next(hint string) {
	if hint != "" {
		c.leader = hint
		return
	}
	for i, n := range c.nodes {
		if n == c.leader {
			c.leader = c.nodes[(i+1)%len(c.nodes)]
			return
		}
	}
}

// thinkTime is a client's pause between requests: long enough that a run's
// history spans its faults, short enough to keep requests overlapping.
func thinkTime() time.Duration {
	return time.Duration(50+rand.Intn(200)) * time.Millisecond
}
