// Command summarize reads the `go test -json` logs run.sh wrote and prints one
// table row per package: result, tests run and skipped, and seconds, under
// seedfall and under wazero, and whether the two agree. Below the table it
// names the tests whose outcome differs.
//
// Usage: go run summarize.go OUT_DIR PKG...
//
// "same?" is "yes" when the results and the counts of tests run, passed,
// failed and skipped are identical; "more" when they differ only because
// seedfall passes tests that wazero skips or never reaches and no test does
// worse under seedfall (wazero refuses absolute symlink targets, so Go's
// testenv.HasSymlink probe fails there and every symlink test skips), or
// skips one that needs the host's /proc (closedWorld); "NO" otherwise. It exits 1 if a package that passes under wazero is "NO".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// event is the part of a test2json event this needs.
type event struct {
	Action string
	Test   string
	Output string
}

// result is one package's run under one runtime.
type result struct {
	status                string // pass, fail, timeout, no result, no tests
	run, pass, fail, skip int
	seconds               int
	outcome               map[string]string // test -> pass, fail or skip
	// crash holds the runtime's own complaints (a trap, a stack overflow).
	crash []string
}

func (r result) same(o result) bool {
	return r.status == o.status && r.run == o.run && r.pass == o.pass && r.fail == o.fail && r.skip == o.skip
}

// rank orders outcomes from worst to best; "" is a test that never ran.
var rank = map[string]int{"fail": 0, "": 1, "skip": 2, "pass": 3}

// closedWorld are tests seedfall skips by design: they read the host's /proc,
// which the simulated world never shows a guest (a host mount of / hides it),
// so Go's own check finds no /proc and skips them, where wazero reads through.
var closedWorld = map[string]bool{"TestReadFileProc": true, "TestDirFSReadFileProc": true}

// noWorse reports whether r (seedfall) passes and no test of r has a worse
// outcome than the same test in o (wazero), but for closedWorld skips.
func (r result) noWorse(o result) bool {
	if r.status != "pass" {
		return false
	}
	for _, t := range union(r.outcome, o.outcome) {
		if closedWorld[t] && r.outcome[t] == "skip" {
			continue
		}
		if rank[r.outcome[t]] < rank[o.outcome[t]] {
			return false
		}
	}
	return true
}

func union(a, b map[string]string) []string {
	names := map[string]bool{}
	for t := range a {
		names[t] = true
	}
	for t := range b {
		names[t] = true
	}
	var out []string
	for t := range names {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func load(dir, runtime, pkg string) result {
	base := filepath.Join(dir, runtime, strings.ReplaceAll(pkg, "/", "_"))
	r := result{status: "no result", outcome: map[string]string{}}
	var code int
	if b, err := os.ReadFile(base + ".exit"); err == nil {
		fmt.Sscan(string(b), &code, &r.seconds)
	}
	f, err := os.Open(base + ".json")
	if err != nil {
		return r
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	scan.Buffer(make([]byte, 1<<20), 64<<20)
	for scan.Scan() {
		var e event
		if json.Unmarshal(scan.Bytes(), &e) != nil {
			continue
		}
		// test2json gives a crash to the test that was running.
		if e.Action == "output" && isCrash(e.Output) {
			r.crash = append(r.crash, strings.TrimSpace(e.Output))
		}
		if e.Test == "" {
			switch e.Action {
			case "pass", "fail":
				r.status = e.Action
			case "skip":
				r.status = "no tests"
			}
			continue
		}
		switch e.Action {
		case "run":
			r.run++
		case "pass":
			r.pass++
		case "fail":
			r.fail++
		case "skip":
			r.skip++
		default:
			continue
		}
		if e.Action != "run" {
			r.outcome[e.Test] = e.Action
		}
	}
	// `timeout` exits 124, or 137 when it had to kill.
	if r.status == "no result" && (code == 124 || code == 137) {
		r.status = "timeout"
	}
	return r
}

// isCrash recognizes what seedfall exec or wazero print when the test binary
// dies outside the testing package's control.
func isCrash(line string) bool {
	for _, s := range []string{"seedfall exec:", "error instantiating wasm binary", "fatal error:", "panic:"} {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

// maxListed caps the tests listed per package: after a crash every later
// test is "not run".
const maxListed = 25

// differences lists the tests whose outcome is not the same in a and b;
// with topOnly, only top-level tests (not subtests).
func differences(a, b result, topOnly bool) []string {
	var out []string
	for _, t := range union(a.outcome, b.outcome) {
		if topOnly && strings.Contains(t, "/") {
			continue
		}
		if a.outcome[t] != b.outcome[t] {
			out = append(out, fmt.Sprintf("%s: seedfall %s, wazero %s", t, or(a.outcome[t], "not run"), or(b.outcome[t], "not run")))
		}
	}
	return out
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: summarize OUT_DIR PKG...")
		os.Exit(2)
	}
	dir, pkgs := os.Args[1], os.Args[2:]
	fmt.Println("| package | seedfall | run | skip | s | wazero | run | skip | s | same? |")
	fmt.Println("|---|---|--:|--:|--:|---|--:|--:|--:|---|")
	var failed []string
	details := map[string][]string{}
	verdicts := map[string]string{}
	crashes := map[string][]string{}
	totals := map[string]int{}
	for _, pkg := range pkgs {
		s, w := load(dir, "seedfall", pkg), load(dir, "wazero", pkg)
		same := "yes"
		if !s.same(w) {
			same = "more"
			details[pkg] = differences(s, w, true)
			if !s.noWorse(w) {
				same = "NO"
				details[pkg] = differences(s, w, false)
				totals["no"]++
				if w.status == "pass" {
					failed = append(failed, pkg)
				}
			}
		}
		verdicts[pkg] = same
		for _, c := range s.crash {
			crashes[pkg] = append(crashes[pkg], "seedfall: "+c)
		}
		for _, c := range w.crash {
			crashes[pkg] = append(crashes[pkg], "wazero: "+c)
		}
		if same == "more" {
			verdicts[pkg] = "more: top-level tests only"
		}
		fmt.Printf("| %s | %s | %d | %d | %d | %s | %d | %d | %d | %s |\n",
			pkg, s.status, s.run, s.skip, s.seconds, w.status, w.run, w.skip, w.seconds, same)
		totals["s.run"] += s.run
		totals["s.skip"] += s.skip
		totals["s.sec"] += s.seconds
		totals["w.run"] += w.run
		totals["w.skip"] += w.skip
		totals["w.sec"] += w.seconds
		if s.status == "pass" {
			totals["s.pass"]++
		}
		if w.status == "pass" {
			totals["w.pass"]++
		}
	}
	fmt.Printf("| **%d packages** | %d pass | %d | %d | %d | %d pass | %d | %d | %d | %d differ, %d NO |\n",
		len(pkgs), totals["s.pass"], totals["s.run"], totals["s.skip"], totals["s.sec"],
		totals["w.pass"], totals["w.run"], totals["w.skip"], totals["w.sec"], len(details), totals["no"])
	for _, pkg := range pkgs {
		if d, ok := details[pkg]; ok {
			fmt.Printf("\n%s differs (%s):\n", pkg, verdicts[pkg])
			for _, line := range crashes[pkg] {
				fmt.Println("  " + line)
			}
			for i, line := range d {
				if i == maxListed {
					fmt.Printf("  ... and %d more\n", len(d)-maxListed)
					break
				}
				fmt.Println("  " + line)
			}
		}
	}
	if len(failed) > 0 {
		fmt.Printf("\nFAIL: pass under wazero but not the same under seedfall: %s\n", strings.Join(failed, " "))
		os.Exit(1)
	}
}
