// Command bank is a ledger of accounts and concurrent transfers between
// them, checked with the Antithesis Go SDK alone: no seedfall import. It
// runs the same under seedfall (the SDK's assertions become seedfall
// properties) and as a plain program (they do nothing).
//
// The bug (default) is the ledger package's: two transfers that touch the
// same account interleaved lose one's update, and money appears or
// vanishes. -fixed holds the ledger's lock across the whole transfer.
//
//	bank [-fixed] [-tellers 4] [-transfers 25]
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sync"

	"github.com/antithesishq/antithesis-sdk-go/assert"
	"github.com/antithesishq/antithesis-sdk-go/lifecycle"
	"seedfall.dev/examples/ledger/ledger"
)

func main() {
	fixed := flag.Bool("fixed", false, "hold the lock across each transfer")
	tellers := flag.Int("tellers", 4, "concurrent transfer goroutines")
	transfers := flag.Int("transfers", 25, "transfers per teller")
	flag.Parse()
	l := ledger.New(*fixed)
	lifecycle.SetupComplete(map[string]any{"accounts": ledger.Accounts})
	var wg sync.WaitGroup
	for t := 0; t < *tellers; t++ {
		wg.Add(1)
		go func(r *rand.Rand) {
			defer wg.Done()
			for i := 0; i < *transfers; i++ {
				from, to := r.Intn(ledger.Accounts), r.Intn(ledger.Accounts)
				if from == to {
					continue
				}
				ok := l.Transfer(from, to, 1+r.Intn(30))
				assert.Sometimes(ok, "a transfer went through", nil)
				assert.Sometimes(!ok, "an overdraft was refused", nil)
				total := l.Total()
				assert.Always(total == ledger.Accounts*ledger.Opening, "money is neither created nor destroyed", map[string]any{"total": total})
			}
		}(rand.New(rand.NewSource(rand.Int63())))
	}
	wg.Wait()
	assert.Reachable("every teller finished", nil)
	fmt.Fprintf(os.Stderr, "%d transfers journaled, total %d\n", l.Journaled(), l.Total())
}
