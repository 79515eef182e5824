#!/usr/bin/env python3
"""Guest CPU: the bench/guest programs under native Go, seedfall, wasmtime and wazero.

    guest.py --dir DIR --seedfall BIN --python PY --wazero BIN [--rounds N] [--quiet-wait S] [--env K=V]... PROGRAM...

Run by bench/guest.sh, which builds everything into DIR: PROGRAM.native
(GOOS=linux), PROGRAM.wasm (GOOS=wasip1 GOARCH=wasm), PROGRAM.cwasm
(wasmtime-precompiled), and warms the seedfall and wazero caches.

Runners, each a fresh process per measurement:
  native    DIR/P.native with GOMAXPROCS=1; wall time of the process.
  seedfall  `seedfall exec --cache-dir DIR/seedfall-cache/P --timings P.wasm` (default
            preemption: call counters at every function entry, strategy none); wall
            time of the process, which includes loading the cached code.
  sf-no-intr same with `--no-intrinsics`: Go functions compiled from their wasm bodies only,
            without native intrinsics (docs/intrinsics.md).
  sf-loops  same with `--preempt none,loops=true` (call and loop counters).
  sf-none   same with `--no-preempt` (no instrumentation at all).
  sf-pin-sp same as seedfall with `--pinned-global first`: Go's stack pointer in Cranelift's
            pinned register (docs/pinned-global.md), to measure what that saves.
  sf-pin-ctr same with `--pinned-global last`: the call counter in the pinned register.
  wasmtime  `PY wasmtime_run.py run P.cwasm`: the module was precompiled by
            wasmtime beforehand; the time is measured inside the process and
            covers Store + WASI setup, instantiation and `_start` to exit (the
            deserialize of the precompiled file and Python's start are excluded).
  wazero    `wazero run -cachedir DIR/wazero-cache P.wasm` (v1.12.0 CLI binary,
            cache warm, so no compilation); wall time of the process, which
            includes wazero loading its cached code.
Every seedfall measurement checks that `--timings` reported a cache Hit.
Every runner's guest gets GOGC=100 and GODEBUG=gctrace=1 (native: the process
environment; seedfall/wazero: `--env`/`-env`; wasmtime: the WASI environment), so the
GC is configured alike everywhere and each run's GC cycles are counted from its
`gc N @` lines; `--env K=V` (repeatable) adds or overrides variables. The wasm runners'
median GC counts must agree within one cycle, or the script reports a problem: a run
time that differs because the GC ran more often is not a code-generation figure.

N rounds (default 5). In a round every program runs once under every runner,
the runner order rotating from round to round; before each program's round
the script waits (up to --quiet-wait seconds, default 20) for a second in
which other processes use under half a CPU. It records how much CPU other
processes took during each measurement. Every run's stdout must equal the
native run's; a difference is reported as a mismatch and fails the script.

Prints markdown tables of medians with min-max (wall, and user+sys CPU), ratios of
medians and geometric means (over all programs except hello, which is only the fixed
start-up cost), the GC cycles per run, and writes every measurement to DIR/results.jsonl.
"""

import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NCPU = os.cpu_count() or 1
RUNNERS = ["native", "seedfall", "sf-no-intr", "sf-loops", "sf-none", "sf-pin-sp", "sf-pin-ctr", "wasmtime", "wazero"]
GUEST_ENV = {"GOGC": "100", "GODEBUG": "gctrace=1"}
GC_LINE = re.compile(r"^gc \d+ @", re.M)


def machine_busy_s():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def wait_quiet(limit):
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        b0 = machine_busy_s()
        time.sleep(1.0)
        if machine_busy_s() - b0 < 0.5:
            break
    return time.perf_counter() - start


def measure(cmd, env=None):
    """Run cmd: wall time, machine busy CPU meanwhile, exit code, stdout, stderr, fd-3 JSON."""
    r3, w3 = os.pipe()
    full_env = dict(os.environ)
    full_env.update(env or {})
    b0, t0 = machine_busy_s(), time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(w3,), env=full_env)
    os.close(w3)
    out, err = p.communicate()
    t1, b1 = time.perf_counter(), machine_busy_s()
    extra = os.read(r3, 1 << 16)
    os.close(r3)
    return {"wall": t1 - t0, "busy": b1 - b0, "rc": p.returncode, "stdout": out.decode(errors="replace"),
            "stderr": err.decode(errors="replace"), "fd3": extra.decode()}


def children_cpu():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gc_table(programs, results, problems, med):
    """GC cycles per run (median) by runner; the wasm runners must agree within one."""
    print("\nGC cycles per run (median of the `gc N @` lines of GODEBUG=gctrace=1)\n")
    print("| program | " + " | ".join(RUNNERS) + " |")
    print("|---|" + "---:|" * len(RUNNERS))
    for p in programs:
        m = {r: med(p, r, 4) for r in RUNNERS}
        print(f"| {p} | " + " | ".join("—" if m[r] is None else f"{m[r]:g}" for r in RUNNERS) + " |")
        wasm = [m[r] for r in RUNNERS if r != "native" and m[r] is not None]
        if wasm and max(wasm) - min(wasm) > 1:
            problems.append(f"{p}: GC cycles differ between wasm runners by more than one: {m}")


def main(argv):
    opts = {"--rounds": "5", "--quiet-wait": "20"}
    extra_env = []
    programs = []
    args = iter(argv)
    for a in args:
        if a == "--env":
            extra_env.append(next(args))
        elif a.startswith("--"):
            opts[a] = next(args)
        else:
            programs.append(a)
    d, sf, py, wz = opts.get("--dir"), opts.get("--seedfall"), opts.get("--python"), opts.get("--wazero")
    rounds, quiet_wait = int(opts["--rounds"]), float(opts["--quiet-wait"])
    if not (d and sf and py and wz and programs):
        print(__doc__, file=sys.stderr)
        return 2
    sf_cache, wz_cache = os.path.join(d, "seedfall-cache"), os.path.join(d, "wazero-cache")
    guest_env = dict(GUEST_ENV)
    for kv in extra_env:
        if "=" not in kv:
            print("--env wants K=V", file=sys.stderr)
            return 2
        guest_env[kv.split("=", 1)[0]] = kv.split("=", 1)[1]
    pairs = [f"{k}={v}" for k, v in guest_env.items()]
    sf_env = [x for kv in pairs for x in ("--env", kv)]
    wz_env = [x for kv in pairs for x in ("-env", kv)]
    native_env = dict(guest_env, GOMAXPROCS="1")

    def command(runner, p):
        wasm = os.path.join(d, p + ".wasm")
        # One cache directory per program: the cache keeps the 8 most recently used sets.
        sfx = [sf, "exec", "--cache-dir", os.path.join(sf_cache, p), "--timings"] + sf_env
        return {
            "native": ([os.path.join(d, p + ".native")], native_env),
            "seedfall": (sfx + [wasm], None),
            "sf-no-intr": (sfx + ["--no-intrinsics", wasm], None),
            "sf-loops": (sfx + ["--preempt", "none,loops=true", wasm], None),
            "sf-none": (sfx + ["--no-preempt", wasm], None),
            "sf-pin-sp": (sfx + ["--pinned-global", "first", wasm], None),
            "sf-pin-ctr": (sfx + ["--pinned-global", "last", wasm], None),
            "wasmtime": ([py, os.path.join(HERE, "wasmtime_run.py"), "run"] + sf_env + [os.path.join(d, p + ".cwasm")], None),
            "wazero": ([wz, "run", "-cachedir", wz_cache] + wz_env + [wasm], None),
        }[runner]

    results = {p: {r: [] for r in RUNNERS} for p in programs}
    expected = {}
    problems = []
    log = open(os.path.join(d, "results.jsonl"), "w")
    for rnd in range(rounds):
        order = RUNNERS[rnd % len(RUNNERS):] + RUNNERS[:rnd % len(RUNNERS)]
        for p in programs:
            waited = wait_quiet(quiet_wait)
            line = []
            for runner in order:
                cmd, env = command(runner, p)
                c0 = children_cpu()
                m = measure(cmd, env)
                cpu = children_cpu() - c0
                rec = {"program": p, "runner": runner, "round": rnd, "wall_s": m["wall"], "cpu_s": cpu,
                       "other_cpu_s": max(0.0, m["busy"] - cpu), "waited_s": waited, "rc": m["rc"],
                       "stdout": m["stdout"], "gc_cycles": len(GC_LINE.findall(m["stderr"]))}
                t = m["wall"]
                if runner == "wasmtime":
                    j = json.loads(m["fd3"] or m["stderr"].strip().splitlines()[-1])
                    rec.update(load_s=j["load_s"], run_s=j["run_s"], run_cpu_s=j.get("run_cpu_s"))
                    t = j["run_s"]
                    if j.get("run_cpu_s") is not None:
                        cpu = rec["cpu_s"] = j["run_cpu_s"]
                if runner.startswith("s"):
                    timing = [l for l in m["stderr"].splitlines() if l.startswith("seedfall: ")]
                    rec["timings"] = timing
                    if not any(l.startswith("seedfall: Hit:") for l in timing):
                        problems.append(f"{p} {runner} round {rnd}: not a cache hit: {timing}")
                rec["time_s"], rec["stderr"] = t, "\n".join(
                    l for l in m["stderr"].splitlines() if not GC_LINE.match(l))[-2000:]
                log.write(json.dumps(rec) + "\n")
                log.flush()
                if m["rc"] != 0:
                    problems.append(f"{p} {runner} round {rnd}: exit {m['rc']}; stderr: {m['stderr'][-1000:]!r}")
                    continue
                if runner == "native" and p not in expected:
                    expected[p] = m["stdout"]
                results[p][runner].append((t, cpu, m["stdout"], rec["other_cpu_s"], rec["gc_cycles"]))
                line.append(f"{runner} {t:.3f}")
            print(f"round {rnd + 1}/{rounds} {p}: " + ", ".join(line) + f" (waited {waited:.0f} s)",
                  file=sys.stderr, flush=True)

    for p in programs:
        for runner in RUNNERS:
            for (_, _, out, _, _) in results[p][runner]:
                if p in expected and out != expected[p]:
                    problems.append(f"OUTPUT MISMATCH {p} {runner}: got {out!r}, native gave {expected[p]!r}")
                    break

    def med(p, runner, i):
        xs = [x[i] for x in results[p][runner]]
        return statistics.median(xs) if xs else None

    def spread(p, runner, i):
        xs = [x[i] for x in results[p][runner]]
        return f"{statistics.median(xs):.3f} ({min(xs):.3f}–{max(xs):.3f})" if xs else "FAIL"

    def table(i, title):
        print(f"\n{title}\n")
        print("| program | native | seedfall (calls) | sf no intrinsics | sf loops | sf uninstr. | sf SP pinned | sf counter pinned | wasmtime "
              "| wazero | sf/wasmtime | no-intrinsics/wasmtime | sf/wazero | sf/native | uninstr./wasmtime | calls overhead | loops overhead "
              "| SP pinned | counter pinned |")
        print("|---|" + "---:|" * 18)
        ratios = {k: [] for k in ("w", "i", "z", "n", "u", "c", "l", "p", "s")}
        for p in programs:
            m = {r: med(p, r, i) for r in RUNNERS}
            def ratio(a, b, key, minus=0.0, pct=False):
                if not m[a] or not m[b]:
                    return "—"
                x = m[a] / m[b]
                if p != "hello":
                    ratios[key].append(x)
                return f"{100 * (x - 1):+.1f}%" if pct else f"{x:.2f}"
            cells = [spread(p, r, i) for r in RUNNERS]
            cells += [ratio("seedfall", "wasmtime", "w"), ratio("sf-no-intr", "wasmtime", "i"),
                      ratio("seedfall", "wazero", "z"),
                      ratio("seedfall", "native", "n"), ratio("sf-none", "wasmtime", "u"),
                      ratio("seedfall", "sf-none", "c", pct=True), ratio("sf-loops", "sf-none", "l", pct=True),
                      ratio("sf-pin-sp", "seedfall", "s", pct=True), ratio("sf-pin-ctr", "seedfall", "p", pct=True)]
            name = f"{p} (start-up only, not in geomean)" if p == "hello" else p
            print(f"| {name} | " + " | ".join(cells) + " |")
        g = {k: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan") for k, v in ratios.items()}
        print(f"| **geomean** | | | | | | | | | | **{g['w']:.2f}** | **{g['i']:.2f}** | **{g['z']:.2f}** | **{g['n']:.2f}** "
              f"| **{g['u']:.2f}** | **{100 * (g['c'] - 1):+.1f}%** | **{100 * (g['l'] - 1):+.1f}%** "
              f"| **{100 * (g['s'] - 1):+.1f}%** | **{100 * (g['p'] - 1):+.1f}%** |")

    print(f"\nGuest environment for every runner: {' '.join(pairs)}")
    table(0, f"Wall time, seconds (median of {rounds} interleaved rounds; wasmtime: in-process run time, see above)")
    table(1, f"CPU time (user+sys), seconds (median of {rounds}; wasmtime: CPU of the run region only)")
    gc_table(programs, results, problems, med)
    kept = [x for p in programs for r in RUNNERS for x in results[p][r]]
    other = sum(x[3] for x in kept)
    span = sum(x[0] for x in kept)
    print(f"\nOther processes used {other:.0f} CPU-s during the {span:.0f} s of measurements "
          f"({100 * other / max(span, 1e-9) / NCPU:.0f}% of the machine's {NCPU} CPUs); load average now "
          f"{open('/proc/loadavg').read().split()[0]}.")
    for x in problems:
        print(f"\n**PROBLEM:** {x}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
