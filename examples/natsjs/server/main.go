// Command server is one natsjs node: an embedded nats-server v2.15.2 with
// JetStream on file storage under -data, every write fsynced before it is
// acknowledged (SyncAlways, the `sync_interval: always` of a config file).
// Clients connect on port 4222; with -peers the node joins a cluster of
// those nodes over routes on port 6222 (NATS's own raft replicates the
// streams). Both listen with plain net.Listen, reached through
// net_overlay: the only seedfall call asks for the node's name.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"seedfall.dev/sdk/sim"
)

func main() {
	data := flag.String("data", "/data", "data directory (JetStream's StoreDir is DATA/jetstream)")
	peers := flag.String("peers", "", "comma-separated nodes of a cluster (empty: a single server)")
	logLevel := flag.String("log", "warn", "what the server logs: warn or info")
	flag.Parse()
	name := sim.Node()
	if err := os.MkdirAll(*data, 0o755); err != nil {
		fatalf("data directory: %v", err)
	}
	opts := &server.Options{
		ServerName: name,
		Host:       "0.0.0.0",
		Port:       4222,
		// net.Interfaces has nothing to report on wasip1, so the server
		// cannot find an address for 0.0.0.0 to tell clients and peers:
		// advertise the node's name, as in a container.
		ClientAdvertise: name + ":4222",
		JetStream:       true,
		StoreDir:        filepath.Join(*data, "jetstream"),
		SyncAlways:      true,
		NoSigs:          true,
	}
	if *peers != "" {
		var urls []string
		for _, p := range strings.Split(*peers, ",") {
			urls = append(urls, "nats-route://"+p+":6222")
		}
		opts.Cluster = server.ClusterOpts{Name: "natsjs", Host: "0.0.0.0", Port: 6222, Advertise: name + ":6222"}
		opts.Routes = server.RoutesFromStr(strings.Join(urls, ","))
	}
	s, err := server.NewServer(opts)
	if err != nil {
		fatalf("new server: %v", err)
	}
	s.SetLogger(&logger{info: *logLevel == "info"}, false, false)
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		fatalf("not ready for connections within 10s")
	}
	fmt.Fprintf(os.Stderr, "natsjs server %s: ready\n", name)
	s.WaitForShutdown()
	fatalf("server shut down")
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "natsjs server: "+format+"\n", args...)
	os.Exit(1)
}

// logger is nats-server's Logger on stderr: warnings, errors and fatal
// errors always, notices with -log info, never debug or trace.
type logger struct{ info bool }

func (l *logger) Noticef(format string, v ...any) {
	if l.info {
		fmt.Fprintf(os.Stderr, "[INF] "+format+"\n", v...)
	}
}
func (l *logger) Warnf(format string, v ...any)  { fmt.Fprintf(os.Stderr, "[WRN] "+format+"\n", v...) }
func (l *logger) Errorf(format string, v ...any) { fmt.Fprintf(os.Stderr, "[ERR] "+format+"\n", v...) }
func (l *logger) Fatalf(format string, v ...any) { fatalf(format, v...) }
func (l *logger) Debugf(string, ...any)          {}
func (l *logger) Tracef(string, ...any)          {}
