#!/usr/bin/env python3
"""wasmtime peer for the guest-CPU and warm-start benchmarks (the Python binding).

    wasmtime_run.py precompile FILE.wasm OUT.cwasm
    wasmtime_run.py run [--env K=V]... FILE.cwasm [ARGS...]
    wasmtime_run.py deserialize [--runs N] FILE.cwasm

precompile: `Module(engine, wasm)` then `Module.serialize()` to OUT (not timed).

run (guest CPU, bench/guest.sh): loads the precompiled module with
`Module.deserialize_file` (timed separately as "load_s"), then times "run_s" =
creating the Store and WasiConfig (argv = [FILE, ARGS...], inherited
stdout/stderr, the --env variables as the environment, no preopens), `Linker.define_wasi`,
instantiation and the `_start` call until the guest's `proc_exit` (wasmtime
reports it as an ExitTrap). No compilation happens in this process. The
guest's stdout is the process's stdout; "run_cpu_s" is the user+sys CPU of
the process (all threads) over the same region. One JSON line with these goes
to fd 3 if it is open, else to stderr. Exits with the guest's exit code.

deserialize (warm start, bench/warm.sh): reads FILE.cwasm (made by
`precompile`; not timed), then N times (default 5), each on a fresh Engine
with the default Config: times `Module.deserialize(engine, bytes)` from the
bytes already in memory, and `Module.deserialize_file(engine, path)` (wasmtime
maps the file; page cache warm), reading included. Neither hashes or even
reads the original wasm: the caller names the precompiled file. Prints one
JSON line with the medians and all samples.

Engine: wasmtime's default Config in every mode (Cranelift, opt level "speed",
guard-page bounds checks, parallel compilation), so precompiled bytes made by
`precompile` are accepted by `run`.
"""

import json
import os
import resource
import statistics
import sys
import time

import wasmtime


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def emit(obj):
    line = json.dumps(obj) + "\n"
    try:
        os.write(3, line.encode())
    except OSError:
        sys.stderr.write(line)


def precompile(wasm_path, out_path):
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, wasm_path)
    with open(out_path, "wb") as f:
        f.write(module.serialize())


def run(cwasm_path, args, env):
    engine = wasmtime.Engine()
    t0 = time.perf_counter()
    module = wasmtime.Module.deserialize_file(engine, cwasm_path)
    t1 = time.perf_counter()
    c1 = cpu_s()
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = [cwasm_path] + args
    wasi.env = [tuple(e.split("=", 1)) for e in env]
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    code = 0
    try:
        instance = linker.instantiate(store, module)
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as e:
        code = e.code
    t2 = time.perf_counter()
    c2 = cpu_s()
    sys.stdout.flush()
    emit({"load_s": t1 - t0, "run_s": t2 - t1, "run_cpu_s": c2 - c1, "exit": code})
    return code


def deserialize(cwasm_path, runs):
    with open(cwasm_path, "rb") as f:
        image = f.read()
    from_bytes, from_file = [], []
    for _ in range(runs):
        e = wasmtime.Engine()
        t0 = time.perf_counter()
        wasmtime.Module.deserialize(e, image)
        from_bytes.append(time.perf_counter() - t0)
        e = wasmtime.Engine()
        t0 = time.perf_counter()
        wasmtime.Module.deserialize_file(e, cwasm_path)
        from_file.append(time.perf_counter() - t0)
    print(json.dumps({
        "engine": "wasmtime", "file": cwasm_path, "image_bytes": len(image),
        "deserialize_bytes_s": statistics.median(from_bytes), "deserialize_file_s": statistics.median(from_file),
        "samples_bytes_s": from_bytes, "samples_file_s": from_file,
    }))


def main(argv):
    if len(argv) == 3 and argv[0] == "precompile":
        precompile(argv[1], argv[2])
        return 0
    if len(argv) >= 2 and argv[0] == "run":
        rest, env = argv[1:], []
        while len(rest) >= 2 and rest[0] == "--env":
            env.append(rest[1])
            rest = rest[2:]
        if rest:
            return run(rest[0], rest[1:], env)
    if argv and argv[0] == "deserialize":
        runs, rest = 5, argv[1:]
        if len(rest) >= 2 and rest[0] == "--runs":
            runs, rest = int(rest[1]), rest[2:]
        if len(rest) == 1:
            deserialize(rest[0], runs)
            return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
