#!/usr/bin/env python3
"""Interleaved cold-compile comparison, seedfall vs wasmtime (run by compile.sh).

    compare.py --seedfall BIN --python PY [--runs N] [--retries K] --out FILE.jsonl NAME=FILE.wasm...
    compare.py --from FILE.jsonl        (only print the tables for a finished run)

For each program, N rounds (default 5). A round compiles the program once on
seedfall's shipped path (`BIN --runs 1 FILE`: the preemption pass, then compile,
what every cache miss runs), once raw (`BIN --raw --runs 1 FILE`: compile only,
for reference) and once with wasmtime (`PY wasmtime_compile.py --runs 1 FILE`),
each in a fresh process that times only that work, the order rotating by round
so drifting machine noise hits all alike.

The machine is shared (other sessions build and test in the same VM), so each
round first waits (up to 3 minutes) for the machine to be idle, and measures
how much CPU other processes took while each engine ran (from /proc/stat, less
the measuring process's own). A round where other processes took more than
10% of the machine during either measurement is "disturbed": it is logged and
run again, up to K times (default 3) per round; if it is still disturbed it is
kept.

Every measurement goes to FILE.jsonl as it comes. At the end two markdown
tables of medians go to stdout: over the undisturbed rounds only (every clean
attempt, retries included), and over all rounds (the attempt each ended on).
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
ENGINES = ["seedfall", "seedfall-raw", "wasmtime"]


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
        elif a == "--from":
            with open(next(args)) as f:
                return report([json.loads(l) for l in f if l.strip()])
        else:
            name, _, path = a.partition("=")
            programs.append((name, path))
    if not (seedfall and python and out and programs and runs >= 1 and retries >= 0):
        print(__doc__, file=sys.stderr)
        return 2

    engines = {
        "seedfall": lambda path: [seedfall, "--runs", "1", path],
        "seedfall-raw": lambda path: [seedfall, "--raw", "--runs", "1", path],
        "wasmtime": lambda path: [python, os.path.join(HERE, "wasmtime_compile.py"), "--runs", "1", path],
    }
    with open(out, "w") as log:
        for name, path in programs:
            failed = set()
            for r in range(runs):
                order = ENGINES[r % len(ENGINES):] + ENGINES[:r % len(ENGINES)]
                for attempt in range(retries + 1):
                    waited = wait_quiet()
                    disturbed = False
                    for engine in order:
                        if engine in failed:
                            continue
                        res = run_one(engines[engine](path))
                        res.update(program=name, round=r, attempt=attempt, engine=engine,
                                   waited_for_quiet_s=round(waited, 1))
                        log.write(json.dumps(res) + "\n")
                        log.flush()
                        if "error" in res:
                            failed.add(engine)
                            print(f"{name}: {engine} failed: {res['error']}", file=sys.stderr)
                            continue
                        disturbed |= res["disturbed"]
                        print(f"{name} round {r + 1}/{runs} attempt {attempt + 1}: {engine} "
                              f"{res['times_s'][0]:.2f} s (cpu {res['cpu_s'][0]:.2f} s; other processes "
                              f"{res['other_cpu_s']:.2f} cpu-s over {res['process_wall_s']:.2f} s"
                              f"{', DISTURBED' if res['disturbed'] else ''})", file=sys.stderr, flush=True)
                    if not disturbed:
                        break
    with open(out) as f:
        return report([json.loads(l) for l in f if l.strip()])


def report(records):
    """Print the markdown tables for the measurements in `records` (a results.jsonl)."""
    programs = list(dict.fromkeys(x["program"] for x in records))
    last_attempt = {}
    for x in records:
        key = (x["program"], x["round"])
        last_attempt[key] = max(last_attempt.get(key, 0), x["attempt"])

    def ok(x):
        return "error" not in x

    def clean_pairs(name):
        """Rounds/attempts in which every engine measured and none was disturbed."""
        by = {}
        for x in records:
            if x["program"] == name and ok(x):
                by.setdefault((x["round"], x["attempt"]), {})[x["engine"]] = x
        return [p for p in by.values() if len(p) == len(ENGINES) and not any(v["disturbed"] for v in p.values())]

    def kept(name):
        """The attempt each round ended on (clean, or the last retry), as pairs."""
        by = {}
        for x in records:
            if x["program"] == name and ok(x) and x["attempt"] == last_attempt[(name, x["round"])]:
                by.setdefault(x["round"], {})[x["engine"]] = x
        return [p for p in by.values() if len(p) == len(ENGINES)]

    def med(pairs, engine, key):
        return statistics.median(p[engine][key][0] for p in pairs)

    def spread(pairs, engine, key):
        xs = [p[engine][key][0] for p in pairs]
        return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"

    def table(select, title, count_label):
        print(title)
        print()
        print(f"| program | wasm MB | functions | seedfall s (instrument + compile) | of which instrument s "
              f"| seedfall raw s | wasmtime s | **ratio seedfall/wasmtime** | raw/wasmtime "
              f"| seedfall CPU s | wasmtime CPU s | CPU ratio | code MB seedfall / wasmtime | {count_label} |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in programs:
            pairs = select(name)
            rounds = len({x["round"] for x in records if x["program"] == name})
            if not pairs:
                failed = sorted({x["engine"] for x in records if x["program"] == name and not ok(x)})
                what = f"FAIL ({', '.join(failed)})" if failed else "—"
                print(f"| {name} | | | {what} | | | | — | | | | | | 0/{rounds} |")
                continue
            s, w = pairs[-1]["seedfall"], pairs[-1]["wasmtime"]
            s_t, r_t, w_t = (med(pairs, e, "times_s") for e in ENGINES)
            s_c, w_c = med(pairs, "seedfall", "cpu_s"), med(pairs, "wasmtime", "cpu_s")
            code_w = f"{w['code_bytes'] / 1e6:.1f}" if w.get("code_bytes") else "—"
            print(f"| {name} | {s['wasm_bytes'] / 1e6:.1f} | {s['defined_functions']:,} "
                  f"| {spread(pairs, 'seedfall', 'times_s')} | {spread(pairs, 'seedfall', 'instrument_s')} "
                  f"| {spread(pairs, 'seedfall-raw', 'times_s')} | {spread(pairs, 'wasmtime', 'times_s')} "
                  f"| **{s_t / w_t:.2f}** | {r_t / w_t:.2f} | {s_c:.2f} | {w_c:.2f} | {s_c / w_c:.2f} "
                  f"| {s['code_bytes'] / 1e6:.1f} / {code_w} | {len(pairs)}/{rounds} |")
        print()

    table(clean_pairs, "Undisturbed rounds only (neither engine's measurement shared the machine with "
          "more than 10% other load; retried attempts included):", "undisturbed rounds")
    table(kept, "All rounds (the attempt each round ended on, disturbed or not):", "rounds")

    good = [x for x in records if ok(x)]
    threads_s = sorted({x["threads"] for x in good if x["engine"].startswith("seedfall")})
    threads_w = sorted({x["threads"] for x in good if x["engine"] == "wasmtime"})
    other = sum(x["other_cpu_s"] for x in good)
    span = sum(x["process_wall_s"] for x in good)
    print(f"Medians (min–max); each engine in a fresh process timing only its work, interleaved "
          f"(order rotating by round); ratios are of medians. Threads: seedfall {threads_s}, wasmtime {threads_w}. "
          f"functions = defined (non-imported) functions; CPU = user+sys of all threads during the "
          f"compile call. {len(good)} measurements in all; other processes used {other:.1f} CPU-s "
          f"over their {span:.0f} s ({100 * other / (span * NCPU):.0f}% of the machine's {NCPU} CPUs).")
    errors = [x for x in records if not ok(x)]
    for x in {(x["program"], x["engine"]): x for x in errors}.values():
        print(f"\n**{x['program']}: {x['engine']} failed:** `{x['error']}`")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
