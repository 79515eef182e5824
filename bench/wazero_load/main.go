// wazero_load: wazero's warm start from its compilation cache, timed in-process.
//
//	wazero_load -cachedir DIR [-runs N] FILE.wasm
//
// The wazero peer of bench/src/bin/warm_start.rs (bench/warm.sh). Each run
// reads FILE (timed as "read"), creates a Runtime with the default compiler
// config and a file compilation cache in DIR (timed as "runtime"), and calls
// Runtime.CompileModule (timed as "compile_module"): with the cache warm this
// is wazero's whole cache load — decoding and validating the wasm, hashing it
// for the cache key, reading and deserializing the cached machine code and
// mapping it executable. It is the same path `wazero run -cachedir DIR` takes
// before instantiating. The first run in a process is the one a fresh
// `wazero run` sees; later runs are in the same process. Prints one JSON line
// per run. Run once beforehand to fill the cache (the first-ever call compiles).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tetratelabs/wazero"
)

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func main() {
	dir := flag.String("cachedir", "", "compilation cache directory")
	runs := flag.Int("runs", 1, "loads in this process")
	flag.Parse()
	if *dir == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wazero_load -cachedir DIR [-runs N] FILE.wasm")
		os.Exit(2)
	}
	file := flag.Arg(0)
	ctx := context.Background()
	for i := 0; i < *runs; i++ {
		t0 := time.Now()
		wasm, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t1 := time.Now()
		cache, err := wazero.NewCompilationCacheWithDir(*dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		t2 := time.Now()
		compiled, err := r.CompileModule(ctx, wasm)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t3 := time.Now()
		out, _ := json.Marshal(map[string]any{
			"engine": "wazero", "file": file, "iteration": i, "wasm_bytes": len(wasm),
			"read_ms": ms(t1.Sub(t0)), "runtime_ms": ms(t2.Sub(t1)), "compile_module_ms": ms(t3.Sub(t2)),
			"total_ms": ms(t3.Sub(t0)),
		})
		fmt.Println(string(out))
		compiled.Close(ctx)
		r.Close(ctx)
	}
}
