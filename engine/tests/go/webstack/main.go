// webstack pulls in net/http, encoding/json and crypto/tls so the engine
// compiles a large, realistic Go binary.
package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
)

type reply struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

func main() {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	req, err := http.NewRequest("GET", "https://example.invalid/", nil)
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(reply{Status: http.StatusOK, Body: req.URL.Host})
	fmt.Println(string(out), cfg.MinVersion)
}
