#!/usr/bin/env python3
"""Interleaved cold-compile comparison, seedfall vs wasmtime (run by compile.sh).

    compare.py --seedfall BIN --python PY --runs N --out FILE.jsonl NAME=FILE.wasm...

For each program, N rounds; each round compiles it once with seedfall
(`BIN --runs 1 FILE`) and once with wasmtime (`PY wasmtime_compile.py --runs 1
FILE`), each in a fresh process that times only the compile call, and
alternates which engine goes first (seedfall first in even rounds, wasmtime
first in odd ones) so machine noise and cache effects hit both alike. Every
measurement is appended to FILE.jsonl as it comes; at the end a markdown table
of medians goes to stdout.
"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_one(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if not lines:
        return {"error": f"exit {p.returncode}, no result; stderr: {p.stderr.strip()[-2000:]}"}
    return json.loads(lines[-1])


def main(argv):
    seedfall = python = out = None
    runs = 5
    programs = []
    args = iter(argv)
    for a in args:
        if a == "--seedfall":
            seedfall = next(args)
        elif a == "--python":
            python = next(args)
        elif a == "--runs":
            runs = int(next(args))
        elif a == "--out":
            out = next(args)
        else:
            name, _, path = a.partition("=")
            programs.append((name, path))
    if not (seedfall and python and out and programs and runs >= 1):
        print(__doc__, file=sys.stderr)
        return 2

    engines = {
        "seedfall": lambda path: [seedfall, "--runs", "1", path],
        "wasmtime": lambda path: [python, os.path.join(HERE, "wasmtime_compile.py"), "--runs", "1", path],
    }
    rows = []
    with open(out, "w") as log:
        for name, path in programs:
            results = {"seedfall": [], "wasmtime": []}
            errors = {}
            for r in range(runs):
                order = ["seedfall", "wasmtime"] if r % 2 == 0 else ["wasmtime", "seedfall"]
                for engine in order:
                    if engine in errors:
                        continue
                    res = run_one(engines[engine](path))
                    res.update(program=name, round=r, engine=engine)
                    log.write(json.dumps(res) + "\n")
                    log.flush()
                    if "error" in res:
                        errors[engine] = res["error"]
                        print(f"{name}: {engine} failed: {res['error']}", file=sys.stderr)
                    else:
                        results[engine].append(res)
                        print(f"{name} round {r + 1}/{runs}: {engine} {res['times_s'][0]:.2f} s "
                              f"(cpu {res['cpu_s'][0]:.2f} s)", file=sys.stderr, flush=True)
            rows.append((name, path, results, errors))

    print("| program | wasm MB | functions | seedfall s | wasmtime s | ratio seedfall/wasmtime "
          "| seedfall CPU s | wasmtime CPU s | code MB seedfall / wasmtime |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed = False
    for name, path, results, errors in rows:
        wasm_mb = os.path.getsize(path) / 1e6
        s, w = results["seedfall"], results["wasmtime"]

        def med(rs, key):
            return statistics.median(x[key][0] for x in rs) if rs else None

        s_t, w_t = med(s, "times_s"), med(w, "times_s")
        s_c, w_c = med(s, "cpu_s"), med(w, "cpu_s")
        funcs = f"{s[-1]['defined_functions']:,}" if s else "?"
        fmt = lambda x: f"{x:.2f}" if x is not None else "FAIL"
        ratio = f"{s_t / w_t:.2f}" if s_t and w_t else "—"
        code = (f"{s[-1]['code_bytes'] / 1e6:.1f}" if s else "—") + " / " + \
               (f"{w[-1]['code_bytes'] / 1e6:.1f}" if w and w[-1].get("code_bytes") else "—")
        print(f"| {name} | {wasm_mb:.1f} | {funcs} | {fmt(s_t)} | {fmt(w_t)} | {ratio} "
              f"| {fmt(s_c)} | {fmt(w_c)} | {code} |")
        failed |= bool(errors)
    threads_s = {x["threads"] for _, _, r, _ in rows for x in r["seedfall"]}
    threads_w = {x["threads"] for _, _, r, _ in rows for x in r["wasmtime"]}
    print()
    print(f"Median of {runs} interleaved runs, each a fresh process timing only the compile call. "
          f"Threads: seedfall {sorted(threads_s)}, wasmtime {sorted(threads_w)}. "
          f"functions = defined (non-imported) functions.")
    for name, _, _, errors in rows:
        for engine, e in errors.items():
            print(f"\n**{name}: {engine} failed:** `{e}`")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
