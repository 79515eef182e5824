// Command catalog lists the property calls in Go packages, from the source:
// every sim.Assert, Always, Sometimes, Reachable and Unreachable call (package
// seedfall.dev/sdk/sim) and every Antithesis SDK assert.Always,
// AlwaysOrUnreachable, Sometimes, Reachable and Unreachable call, under any
// import name. seedfall builds it for the host and runs it over a config's
// packages so a sweep can report properties that no seed ever reached.
//
//	catalog DIR...
//
// For each DIR it asks `go list -deps -json` (with GOOS=wasip1 GOARCH=wasm, so
// the files are the ones the simulation builds) for the packages of the main
// module, parses their Go files and prints one JSON object per line:
// {"kind":"always","message":"…","file":"…","line":N} for a call whose message
// is a string constant it can evaluate (literals joined with +), or
// {"warning":"…"} for one whose message is not. It does not type-check: a
// local variable shadowing the import name would be misread (rare in
// practice). Exit status 2 when go list or parsing fails.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// A property function: its kind in seedfall's terms and where the message is.
type function struct {
	kind       string
	messageArg int
}

var sdks = map[string]map[string]function{
	"seedfall.dev/sdk/sim": {
		"Assert":      {"assert", 1},
		"Always":      {"always", 1},
		"Sometimes":   {"sometimes", 1},
		"Reachable":   {"reachable", 0},
		"Unreachable": {"unreachable", 0},
	},
	"github.com/antithesishq/antithesis-sdk-go/assert": {
		"Always":              {"always", 1},
		"AlwaysOrUnreachable": {"assert", 1},
		"Sometimes":           {"sometimes", 1},
		"Reachable":           {"reachable", 0},
		"Unreachable":         {"unreachable", 0},
	},
}

type record struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Warning string `json:"warning,omitempty"`
}

type listed struct {
	Dir     string
	GoFiles []string
	Module  *struct{ Main bool }
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: catalog DIR...")
		os.Exit(2)
	}
	files := map[string]bool{}
	for _, dir := range os.Args[1:] {
		found, err := mainModuleFiles(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "catalog: %s: %v\n", dir, err)
			os.Exit(2)
		}
		for _, f := range found {
			files[f] = true
		}
	}
	sorted := make([]string, 0, len(files))
	for f := range files {
		sorted = append(sorted, f)
	}
	sort.Strings(sorted)
	out := json.NewEncoder(os.Stdout)
	fset := token.NewFileSet()
	for _, path := range sorted {
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintf(os.Stderr, "catalog: %v\n", err)
			os.Exit(2)
		}
		for _, r := range calls(fset, file) {
			out.Encode(r)
		}
	}
}

// mainModuleFiles lists the Go files of dir's package and of every package of
// the same (main) module it imports.
func mainModuleFiles(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var files []string
	decoder := json.NewDecoder(bytes.NewReader(stdout))
	for decoder.More() {
		var p listed
		if err := decoder.Decode(&p); err != nil {
			return nil, err
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range p.GoFiles {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	return files, nil
}

// calls finds the property calls of one file.
func calls(fset *token.FileSet, file *ast.File) []record {
	names := map[string]map[string]function{}
	for _, spec := range file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		functions, ok := sdks[path]
		if !ok {
			continue
		}
		name := filepath.Base(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		names[name] = functions
	}
	var found []record
	if len(names) == 0 {
		return found
	}
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		fn, ok := names[pkg.Name][sel.Sel.Name]
		if !ok || len(call.Args) <= fn.messageArg {
			return true
		}
		pos := fset.Position(call.Pos())
		message, ok := constant(call.Args[fn.messageArg])
		if !ok {
			found = append(found, record{Warning: fmt.Sprintf("%s:%d: the message of %s.%s is not a string literal, so it cannot be catalogued (a property never reached goes unnoticed)", pos.Filename, pos.Line, pkg.Name, sel.Sel.Name)})
			return true
		}
		found = append(found, record{Kind: fn.kind, Message: message, File: pos.Filename, Line: pos.Line})
		return true
	})
	return found
}

// constant evaluates a string literal or literals joined with +.
func constant(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return constant(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := constant(e.X)
		if !ok {
			return "", false
		}
		b, ok := constant(e.Y)
		return a + b, ok
	}
	return "", false
}
