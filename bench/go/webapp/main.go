// webapp: a typical service binary, pulling in net/http (client and
// server), encoding/json and crypto/tls. It is only compiled by the benchmark,
// never run; main does enough that the linker keeps all three packages.
package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

type reply struct {
	Status int               `json:"status"`
	Path   string            `json:"path"`
	Header map[string]string `json:"header"`
}

func handler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply{Status: http.StatusOK, Path: r.URL.Path, Header: map[string]string{"ua": r.UserAgent()}})
}

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", handler)
	srv := &http.Server{
		Handler:   mux,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12},
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13}}}
	if len(os.Args) > 1 {
		resp, err := client.Get(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var out reply
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		fmt.Println(out.Status, out.Path)
		return
	}
	if err := srv.ListenAndServeTLS("cert.pem", "key.pem"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
