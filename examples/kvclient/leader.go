package kvclient

import (
	"io"
	"net/http"
	"time"
)

// httpClient's timeout keeps a query to a partitioned node from outliving
// one poll of sim.Eventually by much.
var httpClient = &http.Client{Timeout: 300 * time.Millisecond}

// AgreedLeader is the leader every node reports, or "" while they do not
// all report the same one.
func AgreedLeader(nodes []string) string {
	var agreed string
	for i, n := range nodes {
		id, err := leaderOf(n)
		if err != nil || id == "" || (i > 0 && id != agreed) {
			return ""
		}
		agreed = id
	}
	return agreed
}

func leaderOf(node string) (string, error) {
	resp, err := httpClient.Get("http://" + node + ":8000/leader")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}
