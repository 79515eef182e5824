// Command store is the lease example's authority: it holds one register
// (a version number) and grants a lease on it to one replica at a time.
//
//	ACQUIRE <id>        -> GRANT <expiry unix ns> <version> | DENY
//	WRITE <id> <v>      -> OK | DENY     (only the lease holder may write)
//
// A lease lasts -lease from the moment it is granted or renewed, measured on
// the store's monotonic clock. The expiry it reports is that moment on its
// wall clock, which is only meaningful to a machine whose clock agrees.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"seedfall.dev/examples/lease/internal/wire"
)

var (
	listen = flag.String("listen", ":7000", "address to serve")
	lease  = flag.Duration("lease", 300*time.Millisecond, "how long a grant lasts")
)

type store struct {
	mu        sync.Mutex
	holder    string
	expiresAt time.Time // carries a monotonic reading: comparisons ignore wall-clock steps
	version   int
}

func (s *store) handle(request string) string {
	f := strings.Fields(request)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	held := s.holder != "" && now.Before(s.expiresAt)
	switch {
	case len(f) == 2 && f[0] == "ACQUIRE":
		if held && s.holder != f[1] {
			return "DENY"
		}
		s.holder, s.expiresAt = f[1], now.Add(*lease)
		return fmt.Sprintf("GRANT %d %d", s.expiresAt.UnixNano(), s.version)
	case len(f) == 3 && f[0] == "WRITE":
		v, err := strconv.Atoi(f[2])
		if err != nil || !held || s.holder != f[1] {
			return "DENY"
		}
		s.version = max(s.version, v)
		return "OK"
	}
	return "ERR"
}

func main() {
	flag.Parse()
	if err := wire.Serve(*listen, (&store{}).handle); err != nil {
		fmt.Fprintln(os.Stderr, "store:", err)
		os.Exit(1)
	}
}
