// Command client is grpckv's workload: a plain gRPC client with no seedfall
// import that checks the service by exit code. It writes keys one after
// another (retrying every 50ms on any error: the server may be down or cut
// off) and, after every write, reads back an earlier acknowledged key; an
// acknowledged key the server no longer has, or has with another value,
// fails the run (exit 1, the reason on stderr).
//
// The connection is what a user would write: grpc.NewClient with its
// default (DNS) resolver, insecure credentials, a connect backoff of
// 100ms..1s and a 500ms deadline per call.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"seedfall.dev/examples/grpckv/kvpb"
)

const keys = 60

var kv kvpb.KVClient

func main() {
	addr := flag.String("addr", "server:7000", "the server's address")
	flag.Parse()
	conn, err := grpc.NewClient(*addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay:  100 * time.Millisecond,
				Multiplier: 1.6,
				Jitter:     0.2,
				MaxDelay:   time.Second,
			},
			MinConnectTimeout: 5 * time.Second,
		}))
	if err != nil {
		fmt.Fprintf(os.Stderr, "grpckv client: %v\n", err)
		os.Exit(2)
	}
	defer conn.Close()
	kv = kvpb.NewKVClient(conn)

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
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := kv.Put(ctx, &kvpb.PutRequest{Key: key, Value: value})
	return err == nil
}

// check reads an acknowledged key (every key written so far was).
func check(key string) {
	want := "v" + strings.TrimPrefix(key, "k")
	retry(func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		resp, err := kv.Get(ctx, &kvpb.GetRequest{Key: key})
		switch {
		case err == nil && resp.GetValue() == want:
			return true
		case err == nil:
			fmt.Fprintf(os.Stderr, "acknowledged write lost: %s answers %q, want %q\n", key, resp.GetValue(), want)
		case status.Code(err) == codes.NotFound:
			fmt.Fprintf(os.Stderr, "acknowledged write lost: %s answers NOT_FOUND, want %q\n", key, want)
		default:
			return false // down, cut off or slow: try again
		}
		os.Exit(1)
		return false
	})
}
