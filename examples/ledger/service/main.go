// Command service is the ledger as a networked service: the same accounts
// and transfers as ./bank, behind HTTP on :8080, checked with the
// Antithesis Go SDK alone (no seedfall import). Under seedfall the
// standard library's net/http runs over the simulated network
// ("net_overlay": true) and the SDK's assertions are seedfall properties;
// as a plain program it is an ordinary HTTP server.
//
//	POST /transfer?from=0&to=3&amount=20   200 "ok", or 409 "refused" (an overdraft)
//	GET  /total                            the sum of every balance
//
// The bug (default) is the ledger package's: two concurrent requests over
// one account lose an update. -fixed holds the lock across the whole
// transfer.
//
//	service [-fixed] [-listen :8080]
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/antithesishq/antithesis-sdk-go/assert"
	"seedfall.dev/examples/ledger/ledger"
)

func account(r *http.Request, name string) (int, bool) {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	return n, err == nil && n >= 0 && n < ledger.Accounts
}

func main() {
	fixed := flag.Bool("fixed", false, "hold the lock across each transfer")
	listen := flag.String("listen", ":8080", "address to serve on")
	flag.Parse()
	l := ledger.New(*fixed)
	http.HandleFunc("POST /transfer", func(w http.ResponseWriter, r *http.Request) {
		from, okFrom := account(r, "from")
		to, okTo := account(r, "to")
		amount, err := strconv.Atoi(r.URL.Query().Get("amount"))
		if !okFrom || !okTo || from == to || err != nil || amount <= 0 {
			http.Error(w, "want from, to (0-4, different) and a positive amount", http.StatusBadRequest)
			return
		}
		ok := l.Transfer(from, to, amount)
		assert.Sometimes(ok, "a transfer went through", nil)
		assert.Sometimes(!ok, "an overdraft was refused", nil)
		total := l.Total()
		assert.Always(total == ledger.Accounts*ledger.Opening, "money is neither created nor destroyed", map[string]any{"total": total})
		if !ok {
			http.Error(w, "refused", http.StatusConflict)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("GET /total", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, l.Total())
	})
	if err := http.ListenAndServe(*listen, nil); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}
