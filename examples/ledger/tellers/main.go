// Command tellers is the networked ledger's workload: concurrent tellers
// that ask the service for random transfers over HTTP, checked with the
// Antithesis Go SDK alone (no seedfall import). The service's own
// assertion is what fails; the tellers check that it answered and that
// the money adds up at the end.
//
//	tellers [-service http://ledger:8080] [-tellers 4] [-transfers 25]
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/antithesishq/antithesis-sdk-go/assert"
	"github.com/antithesishq/antithesis-sdk-go/lifecycle"
)

func call(client *http.Client, method, url string) (int, string, error) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body)), err
}

// waitForService polls /total until the service answers.
func waitForService(client *http.Client, service string) {
	for tries := 0; ; tries++ {
		if code, _, err := call(client, "GET", service+"/total"); err == nil && code == http.StatusOK {
			return
		}
		if tries == 200 {
			fmt.Fprintln(os.Stderr, "tellers: the service never answered")
			os.Exit(1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func main() {
	service := flag.String("service", "http://ledger:8080", "the ledger service's URL")
	tellers := flag.Int("tellers", 4, "concurrent tellers")
	transfers := flag.Int("transfers", 25, "transfers per teller")
	flag.Parse()
	client := &http.Client{Timeout: 5 * time.Second}
	waitForService(client, *service)
	lifecycle.SetupComplete(map[string]any{"tellers": *tellers})
	var wg sync.WaitGroup
	for range *tellers {
		r := rand.New(rand.NewSource(rand.Int63()))
		wg.Go(func() {
			for range *transfers {
				from, to := r.Intn(5), r.Intn(5)
				if from == to {
					continue
				}
				url := fmt.Sprintf("%s/transfer?from=%d&to=%d&amount=%d", *service, from, to, 1+r.Intn(30))
				code, _, err := call(client, "POST", url)
				assert.Always(err == nil && (code == http.StatusOK || code == http.StatusConflict),
					"the service answers every transfer", map[string]any{"code": code, "error": fmt.Sprint(err)})
			}
		})
	}
	wg.Wait()
	_, total, err := call(client, "GET", *service+"/total")
	assert.Always(err == nil && total == "500", "the money adds up after the tellers are done", map[string]any{"total": total})
	assert.Reachable("every teller finished", nil)
	fmt.Printf("total %s\n", total)
}
