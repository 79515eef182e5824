// Command server is a node of the replkv example: a key-value store with one
// primary and backups. Clients talk to the primary only, one line per
// request ("PUT k v" answers "OK", "GET k" answers "VAL v" or "MISSING").
// The primary applies a write, acknowledges it, and replicates it to every
// backup asynchronously, in batches sent every -lag ("SET k v" lines, no
// answer). With -reads random the primary serves each Get from a replica
// chosen at random, itself or a backup (a "read from followers" setting):
// a backup that has not yet received an acknowledged write answers with the
// old value, a stale read. With -reads primary every Get is answered from
// the primary's own map, which is linearizable.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"seedfall.dev/sdk/sim"
)

var (
	role    = flag.String("role", "backup", "primary or backup")
	backups = flag.String("backups", "", "the primary's backups, comma-separated host:port")
	reads   = flag.String("reads", "primary", "where the primary serves Gets from: primary or random")
	lag     = flag.Duration("lag", 20*time.Millisecond, "how often the primary sends a batch of writes to each backup")
)

type store struct {
	mu   sync.Mutex
	data map[string]string
}

func (s *store) get(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.data[key]; ok {
		return "VAL " + v
	}
	return "MISSING"
}

func (s *store) set(key, value string) {
	s.mu.Lock()
	s.data[key] = value
	s.mu.Unlock()
}

// replicator sends the primary's writes to one backup, in order, a batch
// every -lag.
type replicator struct {
	addr    string
	mu      sync.Mutex
	pending []string
}

func (r *replicator) add(line string) {
	r.mu.Lock()
	r.pending = append(r.pending, line)
	r.mu.Unlock()
}

func (r *replicator) run() {
	var conn net.Conn
	for {
		time.Sleep(*lag)
		r.mu.Lock()
		batch := r.pending
		r.pending = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			continue
		}
		for conn == nil {
			c, err := sim.Dial("tcp", r.addr)
			if err != nil {
				time.Sleep(*lag)
				continue
			}
			conn = c
		}
		if _, err := conn.Write([]byte(strings.Join(batch, ""))); err != nil {
			// Lost with the connection: a backup that misses writes only
			// makes stale reads staler; this example never fails over.
			conn.Close()
			conn = nil
		}
	}
}

// forward asks a backup for a key on a connection of its own.
func forward(addr, key string) (string, error) {
	c, err := sim.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := fmt.Fprintf(c, "GET %s\n", key); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

func main() {
	flag.Parse()
	s := &store{data: map[string]string{}}
	var reps []*replicator
	if *role == "primary" && *backups != "" {
		for _, addr := range strings.Split(*backups, ",") {
			r := &replicator{addr: addr}
			reps = append(reps, r)
			go r.run()
		}
	}
	l, err := sim.Listen("tcp", ":7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "accept:", err)
			os.Exit(1)
		}
		go serve(c, s, reps)
	}
}

func serve(c net.Conn, s *store, reps []*replicator) {
	defer c.Close()
	in := bufio.NewReader(c)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		verb, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		var answer string
		switch verb {
		case "PUT": // from a client, at the primary
			key, value, _ := strings.Cut(rest, " ")
			s.set(key, value)
			for _, r := range reps {
				r.add("SET " + key + " " + value + "\n")
			}
			answer = "OK"
		case "SET": // from the primary, at a backup: no answer
			key, value, _ := strings.Cut(rest, " ")
			s.set(key, value)
			continue
		case "GET":
			answer = s.get(rest)
			if *reads == "random" && len(reps) > 0 {
				if i := rand.Intn(len(reps) + 1); i < len(reps) {
					if a, err := forward(reps[i].addr, rest); err == nil {
						answer = a
					}
				}
			}
		default:
			answer = "ERR unknown request"
		}
		if _, err := c.Write([]byte(answer + "\n")); err != nil {
			return
		}
	}
}
