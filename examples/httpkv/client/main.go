// Command client is httpkv's workload: a plain net/http client with no
// seedfall import that checks the service by exit code. It writes keys one
// after another (retrying while the server is down) and, after every write,
// reads back an earlier acknowledged key; an acknowledged key the server
// no longer has fails the run (exit 1, the reason on stderr). -h2c speaks
// unencrypted HTTP/2 over one multiplexed connection instead of HTTP/1.1.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

const (
	server = "http://server:8080/k/"
	keys   = 60
)

var client = &http.Client{Timeout: 500 * time.Millisecond}

func main() {
	h2c := flag.Bool("h2c", false, "speak unencrypted HTTP/2 (prior knowledge) instead of HTTP/1.1")
	flag.Parse()
	if *h2c {
		t := &http.Transport{Protocols: new(http.Protocols)}
		t.Protocols.SetUnencryptedHTTP2(true)
		client.Transport = t
	}
	for i := 0; i < keys; i++ {
		key, value := fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)
		retry(func() bool { return put(key, value) })
		if i > 0 {
			check(fmt.Sprintf("k%d", (i*7)%i))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := 0; i < keys; i++ {
		check(fmt.Sprintf("k%d", i))
	}
	fmt.Println("all", keys, "acknowledged writes read back")
}

// retry calls try until it succeeds, 50ms apart: the server may be down.
func retry(try func() bool) {
	for !try() {
		time.Sleep(50 * time.Millisecond)
	}
}

func put(key, value string) bool {
	req, _ := http.NewRequest(http.MethodPut, server+key, strings.NewReader(value))
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent
}

// check reads an acknowledged key (every key written so far was).
func check(key string) {
	want := "v" + strings.TrimPrefix(key, "k")
	retry(func() bool {
		resp, err := client.Get(server + key)
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && string(body) == want {
			return true
		}
		fmt.Fprintf(os.Stderr, "acknowledged write lost: %s answers %d %q, want %q\n", key, resp.StatusCode, body, want)
		os.Exit(1)
		return false
	})
}
