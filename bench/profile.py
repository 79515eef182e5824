#!/usr/bin/env python3
"""Where the guest time goes: per-Go-function CPU of seedfall vs wasmtime, from `perf record`.

    profile.py --dir DIR --seedfall BIN --symbols BIN --python PY [--freq HZ] [--top N] [--env K=V] PROGRAM...

Run by bench/profile.sh after bench/guest.sh has built DIR (target/bench/guest):
P.wasm, P.cwasm and warm seedfall caches in DIR/seedfall-cache/P.

For each program, one sampled run per variant (`perf record -e cpu-clock -F HZ`,
default 2000 Hz, no call graphs: self time only):
  calls   `seedfall exec --cache-dir DIR/seedfall-cache/P P.wasm` (default call counters)
  none    the same with `--no-preempt` (uninstrumented)
  wasmtime  a wasmtime run of P.cwasm with `Config.profiler = "perfmap"` and
          `Module.deserialize` (anonymous code, so perf reads /tmp/perf-PID.map).
seedfall runs its code mapped from the cache entry file; perf reports file offsets
there, which `sfc-symbols` (bench/src/bin/sfc_symbols.rs) resolves to Go function
names. Prints per program a table of the top N functions (default 12) by seedfall
CPU seconds (samples / HZ) with each variant's seconds, and the totals split into
guest code and everything else (host, kernel, Python). Single samples: a rough
attribution, not a timing.
"""

import bisect
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

WASMTIME_PROFILED = r'''
import sys, wasmtime
cfg = wasmtime.Config()
cfg.profiler = "perfmap"
engine = wasmtime.Engine(cfg)
module = wasmtime.Module.deserialize(engine, open(sys.argv[1], "rb").read())
linker = wasmtime.Linker(engine)
linker.define_wasi()
store = wasmtime.Store(engine)
w = wasmtime.WasiConfig()
w.argv = [sys.argv[1]]
w.env = [tuple(e.split("=", 1)) for e in sys.argv[2:]]
w.inherit_stdout()
store.set_wasi(w)
try:
    linker.instantiate(store, module).exports(store)["_start"](store)
except wasmtime.ExitTrap:
    pass
'''

LINE = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(\S.*?)\s+\[(.)\]\s+(.*?)\s*$")


def norm(name):
    """One spelling for Go names across runners (wasmtime's perf map writes math/big as math_big)."""
    return name.replace("/", "_")


def perf_samples(data):
    """(samples, dso, symbol-or-address) rows of `perf report`."""
    out = subprocess.run(["perf", "report", "-i", data, "-n", "--sort", "dso,sym", "--stdio", "--percent-limit", "0"],
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(2)), m.group(3).strip(), m.group(5)))
    return rows


def symbols_for(sym_bin, sfc):
    out = subprocess.run([sym_bin, sfc], capture_output=True, text=True, check=True).stdout
    rows = sorted((int(off, 16), int(off, 16) + int(ln, 16), norm(name))
                  for off, ln, name in (line.split(" ", 2) for line in out.splitlines()))
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def record(cmd, freq):
    fd, data = tempfile.mkstemp(suffix=".perf")
    os.close(fd)
    p = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-o", data, "--"] + cmd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    rows = perf_samples(data)
    os.unlink(data)
    return rows


def main(argv):
    opts = {"--freq": "2000", "--top": "12", "--env": ""}
    programs = []
    args = iter(argv)
    for a in args:
        if a.startswith("--"):
            opts[a] = next(args)
        else:
            programs.append(a)
    d, sf, sym, py = opts.get("--dir"), opts.get("--seedfall"), opts.get("--symbols"), opts.get("--python")
    freq, top, env = int(opts["--freq"]), int(opts["--top"]), opts["--env"]
    if not (d and sf and sym and py and programs):
        print(__doc__, file=sys.stderr)
        return 2
    script = os.path.join(tempfile.gettempdir(), "seedfall-bench-wasmtime-profiled.py")
    with open(script, "w") as f:
        f.write(WASMTIME_PROFILED)
    sf_env = ["--env", env] if env else []
    for p in programs:
        cache = os.path.join(d, "seedfall-cache", p)
        wasm = os.path.join(d, p + ".wasm")
        variants = {
            "calls": [sf, "exec", "--cache-dir", cache] + sf_env + [wasm],
            "none": [sf, "exec", "--cache-dir", cache, "--no-preempt"] + sf_env + [wasm],
            "wasmtime": [py, script, os.path.join(d, p + ".cwasm")] + ([env] if env else []),
        }
        per = {}
        for v, cmd in variants.items():
            funcs, other = {}, {}
            before = set(os.listdir(tempfile.gettempdir()))
            for n, dso, s in record(cmd, freq):
                if dso.endswith(".sfc"):
                    path = os.path.join(cache, dso)
                    if path not in symbols:
                        symbols[path] = symbols_for(sym, path)
                    starts, ends, names = symbols[path]
                    addr = int(s, 16) if s.startswith("0x") else None
                    i = bisect.bisect_right(starts, addr) - 1 if addr is not None else -1
                    name = names[i] if i >= 0 and addr < ends[i] else f"?{s}"
                    funcs[name] = funcs.get(name, 0) + n
                elif dso.startswith("[JIT]"):
                    funcs[norm(s)] = funcs.get(norm(s), 0) + n
                else:
                    other[dso] = other.get(dso, 0) + n
            for f in set(os.listdir(tempfile.gettempdir())) - before:
                if re.fullmatch(r"perf-\d+\.map", f):
                    os.unlink(os.path.join(tempfile.gettempdir(), f))
            per[v] = (funcs, other)
        print(f"\n#### {p}\n")
        print("| function (self time) | seedfall calls, s | seedfall uninstr., s | wasmtime, s | calls / wasmtime |")
        print("|---|---:|---:|---:|---:|")
        ranked = sorted(per["calls"][0].items(), key=lambda kv: -kv[1])[:top]
        s = lambda v, name: per[v][0].get(name, 0) / freq
        for name, _ in ranked:
            w = s("wasmtime", name)
            ratio = f"{s('calls', name) / w:.2f}" if w else "—"
            print(f"| `{name}` | {s('calls', name):.3f} | {s('none', name):.3f} | {w:.3f} | {ratio} |")
        tot = {v: sum(per[v][0].values()) / freq for v in per}
        oth = {v: sum(per[v][1].values()) / freq for v in per}
        print(f"| all guest code | {tot['calls']:.3f} | {tot['none']:.3f} | {tot['wasmtime']:.3f} | "
              f"{tot['calls'] / tot['wasmtime']:.2f} |" if tot["wasmtime"] else "")
        print(f"| outside guest code (host, kernel, runtime{', Python' if True else ''}) | {oth['calls']:.3f} | "
              f"{oth['none']:.3f} | {oth['wasmtime']:.3f} | |")
        for v in per:
            big = sorted(per[v][1].items(), key=lambda kv: -kv[1])[:3]
            print(f"\n{v}: outside guest code, top: " + ", ".join(f"{k} {n / freq:.3f} s" for k, n in big))
    return 0


symbols = {}

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
