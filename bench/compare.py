#!/usr/bin/env python3
"""Interleaved cold-compile comparison, seedfall vs wasmtime (run by compile.sh).

    compare.py --seedfall BIN --python PY [--runs N] [--retries K] --out FILE.jsonl NAME=FILE.wasm...

For each program, N rounds (default 5). A round compiles the program once with
seedfall (`BIN --runs 1 FILE`) and once with wasmtime (`PY wasmtime_compile.py
--runs 1 FILE`), each in a fresh process that times only the compile call, and
alternates which engine goes first (seedfall first in even rounds, wasmtime
first in odd ones), so drifting machine noise hits both alike.

The machine is shared (other sessions build and test in the same VM), so each
round first waits (up to 3 minutes) for the machine to be idle, and measures
how much CPU other processes took while each engine ran (from /proc/stat, less
the measuring process's own). A round where other processes took more than
10% of the machine during either measurement is "disturbed": it is logged and
run again, up to K times (default 3) per round; if it is still disturbed it is
kept and counted in the table's "disturbed" column.

Every measurement goes to FILE.jsonl as it comes; at the end a markdown table
of medians goes to stdout.
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NCPU = os.cpu_count() or 1
DISTURBED = 0.10  # share of the machine other processes may take during a measurement


def machine_busy_s():
    """CPU seconds the whole machine (all cores) spent outside idle and iowait."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # user..steal minus idle, iowait
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_quiet(timeout=180.0):
    """Wait until other processes use under 10% of the machine for 2 s; the seconds waited."""
    start = time.perf_counter()
    quiet = 0
    while time.perf_counter() - start < timeout:
        b0 = machine_busy_s()
        time.sleep(1.0)
        if machine_busy_s() - b0 < DISTURBED * NCPU:
            quiet += 1
            if quiet >= 2:
                break
        else:
            quiet = 0
    return time.perf_counter() - start


def run_one(cmd):
    """Run one measuring process; add how much CPU other processes took meanwhile."""
    b0, c0, t0 = machine_busy_s(), children_cpu_s(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    b1, c1, t1 = machine_busy_s(), children_cpu_s(), time.perf_counter()
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if not lines:
        return {"error": f"exit {p.returncode}, no result; stderr: {p.stderr.strip()[-2000:]}"}
    res = json.loads(lines[-1])
    # Busy CPU time of the whole machine minus the measuring process's own,
    # over the process's lifetime: load from anything else (other builds).
    res["other_cpu_s"] = round(max(0.0, (b1 - b0) - (c1 - c0)), 2)
    res["process_wall_s"] = round(t1 - t0, 3)
    res["disturbed"] = res["other_cpu_s"] > DISTURBED * NCPU * res["process_wall_s"]
    return res


def main(argv):
    seedfall = python = out = None
    runs, retries = 5, 3
    programs = []
    args = iter(argv)
    for a in args:
        if a == "--seedfall":
            seedfall = next(args)
        elif a == "--python":
            python = next(args)
        elif a == "--runs":
            runs = int(next(args))
        elif a == "--retries":
            retries = int(next(args))
        elif a == "--out":
            out = next(args)
        else:
            name, _, path = a.partition("=")
            programs.append((name, path))
    if not (seedfall and python and out and programs and runs >= 1 and retries >= 0):
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
            disturbed_kept = 0
            for r in range(runs):
                order = ["seedfall", "wasmtime"] if r % 2 == 0 else ["wasmtime", "seedfall"]
                for attempt in range(retries + 1):
                    waited = wait_quiet()
                    round_res = {}
                    for engine in order:
                        if engine in errors:
                            continue
                        res = run_one(engines[engine](path))
                        res.update(program=name, round=r, attempt=attempt, engine=engine,
                                   waited_for_quiet_s=round(waited, 1))
                        log.write(json.dumps(res) + "\n")
                        log.flush()
                        if "error" in res:
                            errors[engine] = res["error"]
                            print(f"{name}: {engine} failed: {res['error']}", file=sys.stderr)
                            continue
                        round_res[engine] = res
                        print(f"{name} round {r + 1}/{runs} attempt {attempt + 1}: {engine} "
                              f"{res['times_s'][0]:.2f} s (cpu {res['cpu_s'][0]:.2f} s; other processes "
                              f"{res['other_cpu_s']:.2f} cpu-s over {res['process_wall_s']:.2f} s"
                              f"{', DISTURBED' if res['disturbed'] else ''})", file=sys.stderr, flush=True)
                    disturbed = any(x["disturbed"] for x in round_res.values())
                    if not disturbed or attempt == retries:
                        disturbed_kept += disturbed
                        for engine, res in round_res.items():
                            results[engine].append(res)
                        break
            rows.append((name, path, results, errors, disturbed_kept))

    print("| program | wasm MB | functions | seedfall s | wasmtime s | ratio seedfall/wasmtime "
          "| seedfall CPU s | wasmtime CPU s | CPU ratio | code MB seedfall / wasmtime | disturbed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed = False
    for name, path, results, errors, disturbed_kept in rows:
        wasm_mb = os.path.getsize(path) / 1e6
        s, w = results["seedfall"], results["wasmtime"]

        def med(rs, key):
            return statistics.median(x[key][0] for x in rs) if rs else None

        s_t, w_t = med(s, "times_s"), med(w, "times_s")
        s_c, w_c = med(s, "cpu_s"), med(w, "cpu_s")
        funcs = f"{s[-1]['defined_functions']:,}" if s else "?"
        fmt = lambda x: f"{x:.2f}" if x is not None else "FAIL"
        ratio = f"{s_t / w_t:.2f}" if s_t and w_t else "—"
        cpu_ratio = f"{s_c / w_c:.2f}" if s_c and w_c else "—"
        code = (f"{s[-1]['code_bytes'] / 1e6:.1f}" if s else "—") + " / " + \
               (f"{w[-1]['code_bytes'] / 1e6:.1f}" if w and w[-1].get("code_bytes") else "—")
        print(f"| {name} | {wasm_mb:.1f} | {funcs} | {fmt(s_t)} | {fmt(w_t)} | {ratio} "
              f"| {fmt(s_c)} | {fmt(w_c)} | {cpu_ratio} | {code} | {disturbed_kept}/{runs} |")
        failed |= bool(errors)
    threads_s = {x["threads"] for *_, r, _, _ in rows for x in r["seedfall"]}
    threads_w = {x["threads"] for *_, r, _, _ in rows for x in r["wasmtime"]}
    kept = [x for *_, r, _, _ in rows for e in r.values() for x in e]
    other = sum(x["other_cpu_s"] for x in kept)
    span = sum(x["process_wall_s"] for x in kept)
    print()
    print(f"Median of {runs} interleaved rounds, each engine in a fresh process timing only the "
          f"compile call. Threads: seedfall {sorted(threads_s)}, wasmtime {sorted(threads_w)}. "
          f"functions = defined (non-imported) functions; CPU = user+sys of all threads during the "
          f"compile call; disturbed = rounds kept although other processes took >10% of the machine. "
          f"Other processes used {other:.1f} CPU-s over the {span:.0f} s of kept measurements "
          f"({100 * other / (span * NCPU):.0f}% of the machine's {NCPU} CPUs).")
    for name, _, _, errors, _ in rows:
        for engine, e in errors.items():
            print(f"\n**{name}: {engine} failed:** `{e}`")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
