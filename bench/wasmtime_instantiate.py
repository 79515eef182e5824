#!/usr/bin/env python3
"""wasmtime peer for the world benchmark's boot figure (bench/world.sh).

    wasmtime_instantiate.py [--runs N] FILE.wasm

Compiles FILE once (not timed), then N times (default 200): a fresh Store
with a WasiConfig, a Linker with WASI and every other import (the `seedfall`
SDK functions) defined as a no-op of the right type, and
`Linker.instantiate`. Times `Linker.instantiate` alone: memory, tables, data
segments, the same work as seedfall's `Instance::new`; no guest code runs
(Go's `_start` would need the simulator). Prints one JSON line with the
median and the fastest instantiate in milliseconds.
"""

import json
import statistics
import sys
import time

import wasmtime


def main():
    args = sys.argv[1:]
    runs = 200
    if args[:1] == ["--runs"]:
        runs, args = int(args[1]), args[2:]
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, args[0])
    samples = []
    for _ in range(runs):
        store = wasmtime.Store(engine)
        store.set_wasi(wasmtime.WasiConfig())
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        for imp in module.imports:
            if imp.module == "wasi_snapshot_preview1":
                continue
            ty = imp.type
            results = ty.results

            def noop(*_args, _results=results):
                if not _results:
                    return None
                return 0 if len(_results) == 1 else [0] * len(_results)

            linker.define_func(imp.module, imp.name, ty, noop)
        start = time.perf_counter()
        linker.instantiate(store, module)
        samples.append(time.perf_counter() - start)
    print(json.dumps({"file": args[0], "runs": runs,
                      "instantiate_ms_median": statistics.median(samples) * 1e3,
                      "instantiate_ms_min": min(samples) * 1e3,
                      "instantiate_ms_max": max(samples) * 1e3}))


if __name__ == "__main__":
    main()
