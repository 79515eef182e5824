package main

// Connection setup, where a simulated network most easily differs from a
// real one: a listener that appears late, many dials at once, a connection
// cut during the HTTP/2 handshake, h2c beside HTTP/1.1 on one server, and
// name lookups that must fail at once when no DNS answers (gRPC's default
// resolver asks for a TXT record on every resolution).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func setupArm(host string) error {
	for _, arm := range []func(string) error{lateListener, simultaneousDials, h2cBesideHTTP1, cutHandshakes, lookups} {
		if err := arm(host); err != nil {
			return err
		}
	}
	return nil
}

// freePort is a port no one listens on (a listener opened and closed).
func freePort(host string) (string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

func lateListener(host string) error {
	port, err := freePort(host)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(host, port)
	go func() {
		time.Sleep(100 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			say("late listen failed: %v\n", err)
			return
		}
		echo(ln)
	}()
	refused := 0
	var c net.Conn
	for start := time.Now(); time.Since(start) < 2*time.Second; time.Sleep(10 * time.Millisecond) {
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return err
		}
		refused++
	}
	if c == nil {
		return fmt.Errorf("the late listener never answered: %v", err)
	}
	defer c.Close()
	fmt.Fprintln(c, "late")
	got, err := bufio.NewReader(c).ReadString('\n')
	check("a dial before the listener is refused, one after it connects", refused > 0 && err == nil && got == "late\n")
	return nil
}

func simultaneousDials(host string) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	defer ln.Close()
	go echo(ln)
	const dials = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	echoed := 0
	start := make(chan struct{})
	for i := range dials {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				return
			}
			defer c.Close()
			line := fmt.Sprintf("dialer %d\n", i)
			io.WriteString(c, line)
			if got, err := bufio.NewReader(c).ReadString('\n'); err == nil && got == line {
				mu.Lock()
				echoed++
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	say("simultaneous dials echoed: %d of %d\n", echoed, dials)
	return nil
}

// h2cServer serves HTTP/1.1 and unencrypted HTTP/2 (prior knowledge) on
// one listener; its handler answers with the protocol it saw.
func h2cServer(host string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served "+r.Proto)
	})}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	return srv, "http://" + net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)), nil
}

func h2cClient() *http.Client {
	t := &http.Transport{Protocols: new(http.Protocols)}
	t.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: t, Timeout: 2 * time.Second}
}

func get(client *http.Client, url string) (string, error) {
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.Proto + " " + string(body), err
}

func h2cBesideHTTP1(host string) error {
	srv, base, err := h2cServer(host)
	if err != nil {
		return err
	}
	defer srv.Close()
	h1 := &http.Client{Transport: &http.Transport{}, Timeout: 2 * time.Second}
	h2 := h2cClient()
	for _, c := range []*http.Client{h1, h2, h2, h1} {
		got, err := get(c, base+"/")
		if err != nil {
			return err
		}
		say("h2c server: %s\n", got)
	}
	return nil
}

// cutHandshakes cuts an HTTP/2 connection in its preface from either side:
// a client that resets after half the preface must leave the server
// serving, and a server that closes on accept must fail the request.
func cutHandshakes(host string) error {
	srv, base, err := h2cServer(host)
	if err != nil {
		return err
	}
	defer srv.Close()
	c, err := net.Dial("tcp", base[len("http://"):])
	if err != nil {
		return err
	}
	io.WriteString(c, "PRI * HTTP/2.0\r\n\r\n")
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	got, err := get(h2cClient(), base+"/")
	check("after a client cut its preface the server still serves", err == nil && got == "HTTP/2.0 served HTTP/2.0")

	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = get(h2cClient(), "http://"+net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))+"/")
	check("a server that closes during the preface fails the request", err != nil)
	return nil
}

// lookups: names no hosts file has must fail, and at once (well under the
// resolver's 5 s timeout), whether a nameserver says no or none exists.
func lookups(host string) error {
	ctx := context.Background()
	for _, l := range []struct {
		what   string
		lookup func() error
	}{
		{"TXT _grpc_config.<host>", func() error { _, err := net.LookupTXT("_grpc_config." + host); return err }},
		{"SRV _grpclb._tcp.<host>", func() error { _, _, err := net.LookupSRV("grpclb", "tcp", host); return err }},
		{"host nosuch.invalid", func() error { _, err := net.DefaultResolver.LookupHost(ctx, "nosuch.invalid"); return err }},
		{"MX <host>", func() error { _, err := net.LookupMX(host); return err }},
	} {
		start := time.Now()
		err := l.lookup()
		check("lookup of "+l.what+" fails at once", err != nil && time.Since(start) < time.Second)
	}
	return nil
}
