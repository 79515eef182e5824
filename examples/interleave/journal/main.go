// Command journal is the service of the interleave example: an in-memory
// journal of checksummed entries, appended by the connection handler, and a
// background checkpointer that copies the journal and checks every entry of
// its copy.
//
// Appending is lock-free in two steps, as in many write-ahead logs: a
// writer first reserves the entry's bytes (reserved += size), then seals
// the entry (a checksum over its payload, the slow part), writes it into
// the reserved bytes and publishes it (committed = end of the entry). The
// checkpointer must copy the journal up to its committed length: the bytes
// between committed and reserved belong to writes still in progress. By
// default it copies up to the reserved length (the bug; -fixed copies up to
// committed), so a checkpoint taken while a writer is between its reserve
// and its write holds an entry that is not there yet, and the check fails:
// "checkpoint includes an entry whose write is still in progress".
//
// The window is open only while the writer runs: the handler appends a
// whole batch without blocking, and the checkpointer, woken at the start of
// the batch, only gets the CPU when the handler is preempted. Even then it
// first formats a long header (the index of every journal slot) before it
// copies, so the race shows only if the handler is preempted inside a
// window and the checkpointer then runs its whole header without being
// interrupted: one well-placed preemption (pct at depth 2), not many
// (random), and never none.
//
// Protocol on :7000, one line each way: "APPEND <n> <tag>" appends n
// entries and answers "OK <committed bytes>"; "WAIT" waits for the
// checkpoint that the last APPEND started and answers "CHECKPOINT <entries>".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"seedfall.dev/sdk/sim"
)

var (
	listen       = flag.String("listen", ":7000", "address to listen on")
	fixed        = flag.Bool("fixed", false, "checkpoint up to the committed length (the fix)")
	payloadBytes = flag.Int("payload", 64, "bytes of each entry's payload")
	sealRounds   = flag.Int("seal-rounds", 96, "checksum rounds per payload byte (the writer's window)")
	indexSlots   = flag.Int("index-slots", 4096, "journal slots the checkpoint header lists")
	headerRounds = flag.Int("header-rounds", 8, "checksum rounds per header byte (the header's length)")
)

const capacityBytes = 1 << 20

// Entry layout: 4-byte little-endian payload length, payload, 8-byte checksum.
const entryOverhead = 4 + 8

type journal struct {
	buf []byte
	// reserved: bytes handed out to writers. committed: bytes whose
	// entries are completely written. committed <= reserved.
	reserved  atomic.Int64
	committed atomic.Int64
}

var sink uint64

// mix is one checksum round. It keeps a frame (the array) so the Go
// compiler gives it a stack check: that is where a preemption request
// takes effect.
//
//go:noinline
func mix(x uint64, b byte) uint64 {
	var buf [2]uint64
	buf[x%2] = uint64(b)
	return (x^buf[0]^buf[1])*0x100000001b3 + 0x9e3779b97f4a7c15
}

func seal(data []byte, rounds int) uint64 {
	x := uint64(0xcbf29ce484222325)
	for _, b := range data {
		for r := 0; r < rounds; r++ {
			x = mix(x, b)
		}
	}
	return x
}

func payload(dst []byte, tag string, i int) {
	for k := range dst {
		dst[k] = 'a' + byte((k+i+len(tag))%26)
	}
	copy(dst, tag)
}

// appendEntry reserves the entry's bytes, seals it, writes it and
// publishes it. Between reserve and write the bytes hold zeros.
func (j *journal) appendEntry(p []byte) error {
	size := int64(entryOverhead + len(p))
	end := j.reserved.Add(size)
	if end > int64(len(j.buf)) {
		j.reserved.Add(-size)
		return fmt.Errorf("journal full")
	}
	off := end - size
	sum := seal(p, *sealRounds)
	e := j.buf[off:end]
	e[0], e[1], e[2], e[3] = byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), byte(len(p)>>24)
	copy(e[4:], p)
	for k := 0; k < 8; k++ {
		e[4+len(p)+k] = byte(sum >> (8 * k))
	}
	// One writer (the handler), so entries publish in order.
	j.committed.Store(end)
	return nil
}

// check walks a checkpoint's entries; the first one that is not a whole,
// correctly sealed entry is reported.
func check(snap []byte) (entries int, problem string) {
	for off := 0; off < len(snap); {
		if len(snap)-off < entryOverhead {
			return entries, fmt.Sprintf("entry %d at byte %d is cut short", entries+1, off)
		}
		n := int(snap[off]) | int(snap[off+1])<<8 | int(snap[off+2])<<16 | int(snap[off+3])<<24
		if n == 0 || off+entryOverhead+n > len(snap) {
			return entries, fmt.Sprintf("entry %d at byte %d has no length yet", entries+1, off)
		}
		p := snap[off+4 : off+4+n]
		var sum uint64
		for k := 0; k < 8; k++ {
			sum |= uint64(snap[off+4+n+k]) << (8 * k)
		}
		if sum != seal(p, *sealRounds) {
			return entries, fmt.Sprintf("entry %d at byte %d has a bad checksum", entries+1, off)
		}
		entries++
		off += entryOverhead + n
	}
	return entries, ""
}

// header formats the checkpoint's header: every slot of the journal's
// index with its state, then a checksum over all of it. Long on purpose:
// a real header would list segment files, offsets and sizes.
func header(dst []byte, j *journal) []byte {
	dst = append(dst[:0], "journal checkpoint v1\n"...)
	reserved := j.reserved.Load()
	for slot := 0; slot < *indexSlots; slot++ {
		dst = append(dst, "slot "...)
		dst = strconv.AppendInt(dst, int64(slot), 10)
		dst = append(dst, " of "...)
		dst = strconv.AppendInt(dst, reserved, 16)
		dst = append(dst, '\n')
	}
	sum := seal(dst, *headerRounds)
	return strconv.AppendUint(dst, sum, 16)
}

type checkpointer struct {
	j    *journal
	kick chan struct{}
	done chan int
}

func (c *checkpointer) run() {
	head := make([]byte, 0, 64**indexSlots)
	snap := make([]byte, 0, capacityBytes)
	for range c.kick {
		head = header(head, c.j)
		upTo := c.j.reserved.Load() // BUG: writes between committed and reserved are in progress
		if *fixed {
			upTo = c.j.committed.Load()
		}
		snap = append(snap[:0], c.j.buf[:upTo]...)
		entries, problem := check(snap)
		if problem != "" {
			fmt.Fprintf(os.Stderr, "journal: checkpoint of %d bytes (committed %d): %s\n", upTo, c.j.committed.Load(), problem)
		}
		// The message is the property's identity: the detail goes to stderr.
		sim.Assert(problem == "", "checkpoint includes an entry whose write is still in progress")
		c.done <- entries
	}
}

func serve(conn net.Conn, j *journal, c *checkpointer) {
	defer conn.Close()
	in := bufio.NewScanner(conn)
	p := make([]byte, *payloadBytes)
	pending := false
	for in.Scan() {
		f := strings.Fields(in.Text())
		var answer string
		switch {
		case len(f) == 3 && f[0] == "APPEND":
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 1 {
				answer = "ERR bad count"
				break
			}
			// Wake the checkpointer; it runs when the handler next yields.
			select {
			case c.kick <- struct{}{}:
				pending = true
			default:
			}
			for i := 0; i < n && err == nil; i++ {
				payload(p, f[2], i)
				err = j.appendEntry(p)
			}
			if err != nil {
				answer = "ERR " + err.Error()
			} else {
				answer = "OK " + strconv.FormatInt(j.committed.Load(), 10)
			}
		case len(f) == 1 && f[0] == "WAIT":
			entries := 0
			if pending {
				entries = <-c.done
				pending = false
			}
			answer = "CHECKPOINT " + strconv.Itoa(entries)
		default:
			answer = "ERR unknown request"
		}
		if _, err := fmt.Fprintln(conn, answer); err != nil {
			return
		}
	}
}

func main() {
	flag.Parse()
	j := &journal{buf: make([]byte, capacityBytes)}
	c := &checkpointer{j: j, kick: make(chan struct{}, 1), done: make(chan int, 1)}
	go c.run()
	ln, err := sim.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "journal:", err)
		os.Exit(1)
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "journal:", err)
			os.Exit(1)
		}
		go serve(conn, j, c)
	}
}
