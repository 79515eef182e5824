//go:build !wasip1

package sim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The seedfall import module as docs/sdk-abi.md specifies it: name -> wasm
// signature.
var wantImports = map[string]string{
	"node_name":      "(i32 i32) -> (i32)",
	"incarnation":    "() -> (i32)",
	"listen":         "(i32 i32) -> (i32)",
	"dial":           "(i32 i32 i32) -> (i32)",
	"sock_name":      "(i32 i32 i32 i32) -> (i32)",
	"property":       "(i32 i32 i32 i32) -> ()",
	"budget":         "(i64) -> (i64)",
	"quiet_for":      "(i64) -> ()",
	"setup_complete": "() -> ()",
	"progress":       "() -> ()",
	"op_invoke":      "(i32 i32 i32 i32 i32 i32) -> (i64)",
	"op_complete":    "(i64 i32 i32 i32) -> (i32)",
	"txn_begin":      "(i32) -> (i64)",
	"txn_append":     "(i64 i32 i32 i64) -> (i32)",
	"txn_read":       "(i64 i32 i32 i32 i32) -> (i32)",
	"txn_end":        "(i64 i32) -> (i32)",
}

func goCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds for wasip1; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	return goBin
}

func runGo(t *testing.T, goBin string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(goBin, args...)
	cmd.Dir = ".." // the module root
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s go %s: %v\n%s", strings.Join(env, " "), strings.Join(args, " "), err, out)
	}
}

var wasip1 = []string{"GOOS=wasip1", "GOARCH=wasm"}

// TestWasip1VetBuild checks that the module vets and builds for wasip1.
func TestWasip1VetBuild(t *testing.T) {
	goBin := goCommand(t)
	runGo(t, goBin, wasip1, "vet", "./...")
	runGo(t, goBin, wasip1, "build", "./...")
}

// TestWasip1Imports builds a program that calls every function of the
// package and checks that it imports exactly the seedfall module of
// docs/sdk-abi.md, with the same signatures.
func TestWasip1Imports(t *testing.T) {
	goBin := goCommand(t)
	out := filepath.Join(t.TempDir(), "abicheck.wasm")
	runGo(t, goBin, wasip1, "build", "-o", out, "./sim/testdata/abicheck")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	imports, err := wasmImports(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var others []string
	for _, im := range imports {
		switch im.module {
		case "seedfall":
			got[im.name] = im.sig
			t.Logf("seedfall.%s %s", im.name, im.sig)
		case "wasi_snapshot_preview1":
		default:
			others = append(others, im.module+"."+im.name)
		}
	}
	if len(others) > 0 {
		t.Errorf("imports from unexpected modules: %v", others)
	}
	var names []string
	for name := range wantImports {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := wantImports[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if got[name] != wantImports[name] {
			t.Errorf("seedfall.%s: imported as %q, the ABI says %q", name, got[name], wantImports[name])
		}
	}
}

type wasmImport struct{ module, name, sig string }

// wasmImports lists the function imports of a wasm binary with their
// signatures, from the type and import sections.
func wasmImports(b []byte) ([]wasmImport, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New("not a wasm binary")
	}
	r := &wasmReader{b: b, i: 8}
	var types []string
	var imports []wasmImport
	for r.i < len(r.b) && r.err == nil {
		id := r.byte()
		size := int(r.u32())
		end := r.i + size
		if r.err != nil || end > len(r.b) {
			return nil, errors.New("truncated section")
		}
		switch id {
		case 1: // type
			for n := r.u32(); n > 0 && r.err == nil; n-- {
				if r.byte() != 0x60 {
					return nil, errors.New("unknown type form")
				}
				params := r.valtypes()
				results := r.valtypes()
				types = append(types, "("+params+") -> ("+results+")")
			}
		case 2: // import
			for n := r.u32(); n > 0 && r.err == nil; n-- {
				module, name := r.name(), r.name()
				switch kind := r.byte(); kind {
				case 0: // func
					ti := int(r.u32())
					if ti >= len(types) {
						return nil, fmt.Errorf("import %s.%s: bad type index", module, name)
					}
					imports = append(imports, wasmImport{module, name, types[ti]})
				case 1: // table: reftype, limits
					r.byte()
					r.limits()
				case 2: // memory
					r.limits()
				case 3: // global: valtype, mutability
					r.byte()
					r.byte()
				default:
					return nil, fmt.Errorf("import %s.%s: unknown kind %d", module, name, kind)
				}
			}
		}
		r.i = end
	}
	return imports, r.err
}

type wasmReader struct {
	b   []byte
	i   int
	err error
}

func (r *wasmReader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errors.New("unexpected end of wasm binary")
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *wasmReader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return v
}

func (r *wasmReader) name() string {
	n := int(r.u32())
	if r.i+n > len(r.b) {
		r.err = errors.New("unexpected end of wasm binary")
		return ""
	}
	s := string(r.b[r.i : r.i+n])
	r.i += n
	return s
}

func (r *wasmReader) limits() {
	if r.byte()&1 != 0 {
		r.u32()
	}
	r.u32()
}

func (r *wasmReader) valtypes() string {
	var s []string
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		switch t := r.byte(); t {
		case 0x7f:
			s = append(s, "i32")
		case 0x7e:
			s = append(s, "i64")
		case 0x7d:
			s = append(s, "f32")
		case 0x7c:
			s = append(s, "f64")
		default:
			s = append(s, fmt.Sprintf("0x%x", t))
		}
	}
	return strings.Join(s, " ")
}
