#!/usr/bin/env python3
"""Cold start of `seedfall exec` through the compiled-code cache: compile vs remote hit vs local hit.

    remote_cache.py --dir DIR --seedfall BIN --python PY --url URL [--rounds N]

Run by bench/remote_cache.sh, which builds DIR/nethttp.wasm and DIR/nethttp.cwasm
and starts the HTTP server at URL. Each round (N, default 5) runs, in fresh processes,
`seedfall exec --timings DIR/nethttp.wasm -test.run=^$` (Go runtime init and the
test main, no test) with:
  compile     an empty local cache and no remote;
  remote hit  an empty local cache and SEEDFALL_REMOTE_CACHE=URL (the entry is there);
  local hit   the cache the remote hit just filled, the remote still configured;
and wasmtime's `Module.deserialize_file` of the precompiled module in a fresh process
(`wasmtime_run.py deserialize --runs 1`: after one deserialize from bytes; the peer's
fastest warm path; it runs no guest). Wall time of the whole
seedfall process, and seedfall's own --timings breakdown. Median, min-max.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = "bench secret"


def exec_once(seedfall, wasm, cache, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEDFALL_")}
    env.update({"SEEDFALL_CACHE_DIR": cache, "SEEDFALL_CACHE_SECRET": SECRET, **env_extra})
    start = time.perf_counter()
    p = subprocess.run([seedfall, "exec", "--timings", wasm, "-test.run=^$"], capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - start) * 1e3
    if p.returncode != 0:
        raise SystemExit(f"seedfall exec failed ({p.returncode}):\n{p.stderr}")
    line = next(l for l in p.stderr.splitlines() if "key hash" in l)
    if "warning" in p.stderr:
        raise SystemExit(f"unexpected warning:\n{p.stderr}")
    _, outcome, timings = line.split(": ", 2)
    return wall, outcome, timings


def main(argv):
    opts = {"--rounds": "5"}
    args = iter(argv)
    for a in args:
        opts[a] = next(args)
    d, seedfall, py, url = opts["--dir"], opts["--seedfall"], opts["--python"], opts["--url"]
    rounds = int(opts["--rounds"])
    wasm = os.path.join(d, "nethttp.wasm")
    remote = {"SEEDFALL_REMOTE_CACHE": url}
    fresh = lambda name: (shutil.rmtree(os.path.join(d, name), ignore_errors=True), os.path.join(d, name))[1]
    # Put the entry on the server (not timed).
    _, outcome, _ = exec_once(seedfall, wasm, fresh("seed-cache"), remote)
    assert outcome == "Miss", outcome
    samples = {"compile": [], "remote hit": [], "local hit": [], "wasmtime deserialize_file": []}
    breakdown = {}
    log = open(os.path.join(d, "results.jsonl"), "w")
    for r in range(rounds):
        for mode, cache, env in [("compile", fresh("c"), {}), ("remote hit", fresh("r"), remote), ("local hit", os.path.join(d, "r"), remote)]:
            wall, outcome, line = exec_once(seedfall, wasm, cache, env)
            expected = {"compile": "Miss", "remote hit": "RemoteHit", "local hit": "Hit"}[mode]
            if outcome != expected:
                raise SystemExit(f"{mode}: seedfall says {outcome}: {line}")
            samples[mode].append(wall)
            breakdown.setdefault(mode, []).append(line)
            log.write(json.dumps({"round": r, "mode": mode, "wall_ms": wall, "timings": line}) + "\n")
        p = subprocess.run([py, os.path.join(HERE, "wasmtime_run.py"), "deserialize", "--runs", "1", os.path.join(d, "nethttp.cwasm")],
                           capture_output=True, text=True, check=True)
        doc = json.loads(next(l for l in p.stdout.splitlines() if l.startswith("{")))
        ms = doc["deserialize_file_s"] * 1e3
        samples["wasmtime deserialize_file"].append(ms)
        log.write(json.dumps({"round": r, "mode": "wasmtime", **doc}) + "\n")
    size = os.path.getsize(wasm) / 1e6
    print(f"`seedfall exec` cold start, `go test -c net/http` ({size:.1f} MB wasm), {rounds} rounds, "
          f"load average {open('/proc/loadavg').read().split()[0]}\n")
    print("| cache state | median ms | min–max ms | ratio to local hit |")
    print("|---|---:|---:|---:|")
    local = statistics.median(samples["local hit"])
    for mode, xs in samples.items():
        m = statistics.median(xs)
        print(f"| {mode} | {m:.0f} | {min(xs):.0f}–{max(xs):.0f} | {m / local:.2f} |")
    print("\nseedfall's own breakdown (last round):")
    for mode, lines in breakdown.items():
        print(f"- {mode}: {lines[-1]}")
    print("\nseedfall rows are whole `seedfall exec` processes (guest start included); the wasmtime row is "
          "`deserialize_file` alone, in a fresh process.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
