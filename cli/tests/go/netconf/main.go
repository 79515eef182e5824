// netconf exercises the parts of package net a service uses and prints only
// what must be the same natively (on localhost) and under seedfall's
// net_overlay (cli/tests/net_overlay.rs): no addresses, ports or timings.
// -host names the address the TCP listener is reached at. With
// NETCONF_EXPECT in the environment it also compares what it printed with
// that text and exits 1 on a difference, so a seed sweep checks every seed.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	host := flag.String("host", "127.0.0.1", "the TCP listener's host")
	flag.Parse()
	if err := run(*host); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	say("done\n")
	if want, ok := os.LookupEnv("NETCONF_EXPECT"); ok {
		compare(strings.SplitAfter(printed.String(), "\n"), strings.SplitAfter(want, "\n"))
	}
}

// compare exits 1 naming the first line where got and want differ.
func compare(got, want []string) {
	for i := range max(len(got), len(want)) {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(os.Stderr, "line %d is %q where natively it printed %q\n", i+1, g, w)
			os.Exit(1)
		}
	}
}

// printed is everything say wrote, for the comparison with NETCONF_EXPECT
// (the native output, which a seed sweep checks in every seed).
var printed strings.Builder

func say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	printed.WriteString(line)
	fmt.Print(line)
}

func check(what string, ok bool) {
	say("%s: %v\n", what, ok)
}

func run(host string) error {
	addrs, err := net.LookupHost(host)
	if err != nil {
		return err
	}
	check("lookup finds one address", len(addrs) == 1)

	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	laddr, isTCP := ln.Addr().(*net.TCPAddr)
	check("listener address is a *TCPAddr with a port", isTCP && laddr.Port != 0)
	port := strconv.Itoa(laddr.Port)
	go echo(ln)

	c, err := net.Dial("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	check("conn addresses are *TCPAddr", lok && rok)
	check("remote is the listener", remote.Port == laddr.Port && remote.IP.Equal(laddr.IP))
	check("local and remote differ", local.String() != remote.String())
	tc := c.(*net.TCPConn)
	check("socket options succeed", tc.SetNoDelay(true) == nil && tc.SetKeepAlive(true) == nil &&
		tc.SetKeepAlivePeriod(time.Second) == nil && tc.SetReadBuffer(1<<16) == nil &&
		tc.SetWriteBuffer(1<<16) == nil && tc.SetLinger(-1) == nil)
	r := bufio.NewReader(c)
	for _, line := range []string{"hello", "world"} {
		fmt.Fprintln(c, line)
		got, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		say("echo: %s", got)
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err = r.ReadByte()
	check("read past the deadline times out", errors.Is(err, os.ErrDeadlineExceeded))
	c.SetReadDeadline(time.Time{})
	fmt.Fprintln(c, "bye")
	_, err = r.ReadString('\n')
	check("the server's close reads as EOF", err == io.EOF)
	c.Close()
	_, err = c.Write([]byte("x"))
	check("write after close is ErrClosed", errors.Is(err, net.ErrClosed))

	free, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	freeAddr := free.Addr().String()
	free.Close()
	_, err = net.Dial("tcp", freeAddr)
	check("dialling a closed port is refused", errors.Is(err, syscall.ECONNREFUSED))

	if err := httpArm(host); err != nil {
		return err
	}
	if err := udpArm(); err != nil {
		return err
	}
	return setupArm(host)
}

// echo answers each line with itself and closes the connection on "bye".
func echo(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil || line == "bye\n" {
					return
				}
				io.WriteString(c, line)
			}
		}()
	}
}

func httpArm(host string) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	var conns atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Query().Get("name"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "late")
	})
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	base := "http://" + ln.Addr().String()
	if host != "127.0.0.1" {
		base = "http://" + net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	client := &http.Client{Transport: &http.Transport{}}
	for _, name := range []string{"a", "b", "c"} {
		resp, err := client.Get(base + "/hello?name=" + name)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		say("GET /hello: %d %s\n", resp.StatusCode, body)
	}
	resp, err := client.Post(base+"/echo", "text/plain", strings.NewReader("posted body"))
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	say("POST /echo: %d %s\n", resp.StatusCode, body)
	check("keep-alive reuses one connection", conns.Load() == 1)

	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	_, err = impatient.Get(base + "/slow")
	var netErr net.Error
	check("a client timeout is a timeout", errors.As(err, &netErr) && netErr.Timeout())
	srv.Close()
	_, err = client.Get(base + "/hello")
	check("a closed server fails requests", err != nil)
	return nil
}

func udpArm() error {
	server, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	defer server.Close()
	client, err := net.DialUDP("udp", nil, server.LocalAddr().(*net.UDPAddr))
	if err != nil {
		return err
	}
	defer client.Close()
	if _, err := client.Write([]byte("ping")); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, from, err := server.ReadFromUDP(buf)
	if err != nil {
		return err
	}
	say("udp server got: %s\n", buf[:n])
	if _, err := server.WriteToUDP([]byte("pong"), from); err != nil {
		return err
	}
	n, err = client.Read(buf)
	if err != nil {
		return err
	}
	say("udp client got: %s\n", buf[:n])
	return nil
}
