#!/usr/bin/env python3
"""Warm start: seedfall's cache hit, phase by phase, against wasmtime's deserialize and wazero's cache load.

    warm.py --dir DIR --warm-start BIN --python PY --wazero-load BIN [--rounds N] [--cold-rounds K] NAME...

Run by bench/warm.sh, which builds DIR/NAME.wasm, DIR/NAME.cwasm (wasmtime
precompiled) and the two measuring binaries.

Per module:
  cold      K times (default 3): `warm-start --cold --cache-dir DIR/sf-cache/NAME FILE`, a fresh
            process on an emptied cache directory: read, key hash, instrument + compile, encode,
            publish (write, fsync, rename), load. The last one leaves the cache warm.
  rounds    N times (default 10), interleaved, the order rotating:
            seedfall: `warm-start --iterations 5 --cache-dir ... FILE` (fresh process; 5 hits);
            wasmtime: `wasmtime_run.py deserialize --runs 5 NAME.cwasm` (fresh process);
            wazero:   `wazero_load -cachedir DIR/wz-cache/NAME -runs 5 FILE` (fresh process).
"first" = the first load in a fresh process (what a new `seedfall exec`/`wazero run` pays),
"repeat" = the median of loads 2..5 in the same process. Medians over the rounds. Raw
measurements: DIR/results.jsonl.
"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["read_ms", "key_hash_ms", "map_ms", "verify_ms", "decode_ms", "load_ms", "total_ms"]


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    if p.stderr.strip():
        print(p.stderr.strip(), file=sys.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main(argv):
    opts = {"--rounds": "10", "--cold-rounds": "3"}
    names = []
    args = iter(argv)
    for a in args:
        if a.startswith("--"):
            opts[a] = next(args)
        else:
            names.append(a)
    d, ws, py, wl = opts.get("--dir"), opts.get("--warm-start"), opts.get("--python"), opts.get("--wazero-load")
    rounds, cold_rounds = int(opts["--rounds"]), int(opts["--cold-rounds"])
    if not (d and ws and py and wl and names):
        print(__doc__, file=sys.stderr)
        return 2
    log = open(os.path.join(d, "results.jsonl"), "w")

    def record(kind, name, rnd, rows):
        for r in rows:
            r.update(kind=kind, module=name, round=rnd)
            log.write(json.dumps(r) + "\n")
        log.flush()
        return rows

    out = {}
    for name in names:
        wasm, cwasm = os.path.join(d, name + ".wasm"), os.path.join(d, name + ".cwasm")
        sf_dir, wz_dir = os.path.join(d, "sf-cache", name), os.path.join(d, "wz-cache", name)
        cold = []
        for rnd in range(cold_rounds):
            rows = record("seedfall-cold", name, rnd, run_json([ws, "--cold", "--cache-dir", sf_dir, wasm]))
            assert rows[0]["outcome"] == "Miss", rows
            cold.append(rows[0])
            print(f"{name} cold {rnd + 1}/{cold_rounds}: total {rows[0]['total_ms']:.0f} ms "
                  f"(compile {rows[0]['compile_ms']:.0f} ms)", file=sys.stderr, flush=True)
        run_json([wl, "-cachedir", wz_dir, wasm])  # fill wazero's cache (compiles if empty)
        runners = {
            "seedfall": lambda: run_json([ws, "--iterations", "5", "--cache-dir", sf_dir, wasm]),
            "wasmtime": lambda: run_json([py, os.path.join(HERE, "wasmtime_run.py"), "deserialize", "--runs", "5", cwasm]),
            "wazero": lambda: run_json([wl, "-cachedir", wz_dir, "-runs", "5", wasm]),
        }
        got = {k: [] for k in runners}
        for rnd in range(rounds):
            order = list(runners)[rnd % 3:] + list(runners)[:rnd % 3]
            for k in order:
                rows = record(k, name, rnd, runners[k]())
                if k == "seedfall":
                    bad = [r["outcome"] for r in rows if r["outcome"] != "Hit"]
                    if bad:
                        raise SystemExit(f"{name}: seedfall warm load was not a hit: {bad}")
                got[k].append(rows)
            print(f"{name} round {rnd + 1}/{rounds}: seedfall {got['seedfall'][-1][0]['total_ms']:.1f} ms, "
                  f"wasmtime {1e3 * got['wasmtime'][-1][0]['samples_file_s'][0]:.1f} ms, "
                  f"wazero {got['wazero'][-1][0]['total_ms']:.1f} ms (first in process)", file=sys.stderr, flush=True)
        out[name] = (cold, got)

    for name in names:
        cold, got = out[name]
        sf_first = {p: med([rows[0][p] for rows in got["seedfall"]]) for p in PHASES}
        sf_rep = {p: med([med([r[p] for r in rows[1:]]) for rows in got["seedfall"]]) for p in PHASES}
        wt_bytes_first = med([1e3 * rows[0]["samples_bytes_s"][0] for rows in got["wasmtime"]])
        wt_file_first = med([1e3 * rows[0]["samples_file_s"][0] for rows in got["wasmtime"]])
        wt_bytes_rep = med([1e3 * med(rows[0]["samples_bytes_s"][1:]) for rows in got["wasmtime"]])
        wt_file_rep = med([1e3 * med(rows[0]["samples_file_s"][1:]) for rows in got["wasmtime"]])
        wz_first = {p: med([rows[0][p] for rows in got["wazero"]]) for p in ("read_ms", "runtime_ms", "compile_module_ms", "total_ms")}
        wz_rep = {p: med([med([r[p] for r in rows[1:]]) for rows in got["wazero"]]) for p in ("read_ms", "runtime_ms", "compile_module_ms", "total_ms")}
        c = {p: med([r[p] for r in cold]) for p in ("read_ms", "key_hash_ms", "compile_ms", "encode_ms", "publish_ms", "load_ms", "total_ms")}
        mb = got["seedfall"][0][0]["wasm_bytes"] / 1e6
        code_mb = got["seedfall"][0][0]["code_bytes"] / 1e6
        img_mb = got["wasmtime"][0][0]["image_bytes"] / 1e6
        print(f"\n### {name} ({mb:.1f} MB wasm; seedfall code {code_mb:.1f} MB, wasmtime image {img_mb:.1f} MB)\n")
        print(f"seedfall cold (median of {len(cold)}, fresh process, empty cache): total **{c['total_ms']:.0f} ms** = "
              f"read {c['read_ms']:.1f} + key hash {c['key_hash_ms']:.1f} + instrument+compile {c['compile_ms']:.0f} + "
              f"encode {c['encode_ms']:.1f} + publish {c['publish_ms']:.1f} + load {c['load_ms']:.2f} ms.\n")
        print("| seedfall warm, ms | open | read + key hash | map | verify | decode | load (map exec + link) | **total** |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, v in (("first in a fresh process", sf_first), ("repeat, same process", sf_rep)):
            print(f"| {label} | " + " | ".join(f"{v[p]:.2f}" for p in PHASES[:-1]) + f" | **{v['total_ms']:.2f}** |")
        print()
        print("| peer, ms | first in a fresh process | repeat, same process | seedfall total / peer (first) |")
        print("|---|---:|---:|---:|")
        rows = [
            ("wasmtime `Module.deserialize(bytes)` (bytes in memory)", wt_bytes_first, wt_bytes_rep),
            ("wasmtime `Module.deserialize_file` (mmap)", wt_file_first, wt_file_rep),
            ("wazero `CompileModule`, warm file cache", wz_first["compile_module_ms"], wz_rep["compile_module_ms"]),
            ("wazero read + runtime + `CompileModule`", wz_first["total_ms"], wz_rep["total_ms"]),
        ]
        for label, first, rep in rows:
            print(f"| {label} | {first:.2f} | {rep:.2f} | {sf_first['total_ms'] / first:.2f} |")
        print(f"\nGoals (25 MB module): whole warm start ≤ 20 ms — seedfall first-in-process "
              f"{sf_first['total_ms']:.1f} ms; mapping + linking ≤ 1 ms — load {sf_first['load_ms']:.2f} ms "
              f"(map {sf_first['map_ms']:.2f} ms of the entry file is separate). Median of {rounds} rounds.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
