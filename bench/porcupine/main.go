// Command porcupine times Porcupine v1.3.1's CheckOperations on each history of its own test data, the
// peer of seedfall's check/examples/lincheck_bench.rs in bench/lincheck.sh. Each log line is one event and
// its line number its time, as on the Rust side; an operation that never completed returns at the end of
// time with an unknown output, and the models accept any output for it (seedfall's indeterminate ops).
// Prints one JSON line per file and run: {"file", "run", "ns", "linearizable"}.
package main

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// casIn is a cas-register input: op 'r' read, 'w' write(a), 'c' cas(a, b).
type casIn struct {
	op   byte
	a, b int
}

// casOut: for a read, the value (missing: present false); for a cas, whether it swapped.
type casOut struct {
	unknown bool
	present bool
	value   int
	swapped bool
}

const missing = math.MinInt

var casModel = porcupine.Model{
	Init: func() interface{} { return missing },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, in, out := state.(int), input.(casIn), output.(casOut)
		switch in.op {
		case 'r':
			return out.unknown || (!out.present && st == missing) || (out.present && st == out.value), st
		case 'w':
			return true, in.a
		default:
			matches := st == in.a
			next := st
			if matches {
				next = in.b
			}
			return out.unknown || out.swapped == matches, next
		}
	},
}

// kvIn is a kv input: op 'g' get, 'p' put, 'a' append.
type kvIn struct {
	op         byte
	key, value string
}

type kvOut struct {
	unknown bool
	value   string
}

var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		for _, op := range history {
			k := op.Input.(kvIn).key
			byKey[k] = append(byKey[k], op)
		}
		keys := make([]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, in, out := state.(string), input.(kvIn), output.(kvOut)
		switch in.op {
		case 'g':
			return out.unknown || out.value == st, st
		case 'p':
			return true, in.value
		default:
			return true, st + in.value
		}
	},
	Hash: func(state interface{}) uint64 {
		h := fnv.New64a()
		h.Write([]byte(state.(string)))
		return h.Sum64()
	},
}

// history collects operations; pending maps a process to its operation awaiting completion.
type history struct {
	ops     []porcupine.Operation
	pending map[int]int
}

func (h *history) invoke(proc int, at int64, in interface{}) {
	h.pending[proc] = len(h.ops)
	h.ops = append(h.ops, porcupine.Operation{ClientId: proc, Input: in, Call: at, Return: math.MaxInt64})
}

func (h *history) complete(proc int, at int64, out interface{}) {
	i := h.pending[proc]
	delete(h.pending, proc)
	h.ops[i].Return = at
	h.ops[i].Output = out
}

// abandon leaves proc's operation incomplete: it returns at the end of time with an unknown output.
func (h *history) abandon(proc int, unknown interface{}) {
	h.ops[h.pending[proc]].Output = unknown
	delete(h.pending, proc)
}

// finish abandons every operation still pending.
func (h *history) finish(unknown interface{}) []porcupine.Operation {
	for proc := range h.pending {
		h.abandon(proc, unknown)
	}
	return h.ops
}

func lines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func etcdLog(path string) []porcupine.Operation {
	h := &history{pending: map[int]int{}}
	for at, line := range lines(path) {
		event, ok := strings.CutPrefix(line, "INFO  jepsen.util - ")
		if !ok {
			continue
		}
		f := strings.Fields(event)
		proc, _ := strconv.Atoi(f[0])
		value := strings.Join(f[3:], " ")
		t := int64(at)
		switch f[1] + " " + f[2] {
		case ":invoke :read":
			h.invoke(proc, t, casIn{op: 'r'})
		case ":invoke :write":
			v, _ := strconv.Atoi(value)
			h.invoke(proc, t, casIn{op: 'w', a: v})
		case ":invoke :cas":
			ab := strings.Fields(strings.Trim(value, "[]"))
			a, _ := strconv.Atoi(ab[0])
			b, _ := strconv.Atoi(ab[1])
			h.invoke(proc, t, casIn{op: 'c', a: a, b: b})
		case ":ok :read":
			if value == "nil" {
				h.complete(proc, t, casOut{})
			} else {
				v, _ := strconv.Atoi(value)
				h.complete(proc, t, casOut{present: true, value: v})
			}
		case ":ok :write":
			h.complete(proc, t, casOut{})
		case ":ok :cas":
			h.complete(proc, t, casOut{swapped: true})
		case ":fail :cas":
			h.complete(proc, t, casOut{swapped: false})
		case ":info :write", ":info :cas", ":fail :read":
			h.abandon(proc, casOut{unknown: true})
		default:
			panic(fmt.Sprintf("%s:%d: %q", path, at, line))
		}
	}
	return h.finish(casOut{unknown: true})
}

// field returns the value after ":name " in a kv log line, without quotes.
func field(line, name string) string {
	rest := line[strings.Index(line, ":"+name+" ")+len(name)+2:]
	if strings.HasPrefix(rest, "\"") {
		return rest[1 : 1+strings.Index(rest[1:], "\"")]
	}
	return rest[:strings.IndexAny(rest, ",}")]
}

func kvLog(path string) []porcupine.Operation {
	h := &history{pending: map[int]int{}}
	for at, line := range lines(path) {
		proc, _ := strconv.Atoi(field(line, "process"))
		kind, f, key, value := field(line, "type"), field(line, "f"), field(line, "key"), field(line, "value")
		t := int64(at)
		switch kind + " " + f {
		case ":invoke :get":
			h.invoke(proc, t, kvIn{op: 'g', key: key})
		case ":invoke :put":
			h.invoke(proc, t, kvIn{op: 'p', key: key, value: value})
		case ":invoke :append":
			h.invoke(proc, t, kvIn{op: 'a', key: key, value: value})
		case ":ok :get":
			h.complete(proc, t, kvOut{value: value})
		case ":ok :put", ":ok :append":
			h.complete(proc, t, kvOut{})
		default:
			panic(fmt.Sprintf("%s:%d: %q", path, at, line))
		}
	}
	return h.finish(kvOut{unknown: true})
}

func main() {
	dir := os.Args[1] // porcupine's test_data
	runs, _ := strconv.Atoi(os.Args[2])
	type entry struct {
		name  string
		model porcupine.Model
		ops   []porcupine.Operation
	}
	var all []entry
	etcd, _ := filepath.Glob(filepath.Join(dir, "jepsen", "etcd_*.log"))
	for _, p := range etcd {
		if filepath.Base(p) != "etcd_095.log" {
			all = append(all, entry{filepath.Base(p), casModel, etcdLog(p)})
		}
	}
	kv, _ := filepath.Glob(filepath.Join(dir, "kv", "*.txt"))
	for _, p := range kv {
		all = append(all, entry{filepath.Base(p), kvModel, kvLog(p)})
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for run := 0; run < runs; run++ {
		for _, e := range all {
			start := time.Now()
			ok := porcupine.CheckOperations(e.model, e.ops)
			ns := time.Since(start).Nanoseconds()
			fmt.Fprintf(out, "{\"file\":%q,\"run\":%d,\"ns\":%d,\"linearizable\":%t}\n", e.name, run, ns, ok)
		}
	}
}
