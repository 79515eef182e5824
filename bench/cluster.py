#!/usr/bin/env python3
"""Real Go distributed systems: guest CPU and boot of one process, and sweep throughput.

    cluster.py --dir DIR --shm DIR --seedfall BIN --wazero BIN [--rounds N] [--programs raft3,nats1]
               [--n-raft3 N] [--n-nats1 N] [--seeds LIST|none]

Run by bench/cluster.sh, which builds DIR/<program>.native and DIR/<program>.wasm
for each program of bench/cluster (raft3: three hashicorp/raft nodes in one
process over raft's in-memory transport; nats1: one embedded nats-server with
JetStream file storage and an in-process client) and warms both caches.

1. Each program under native Go (GOMAXPROCS=1), `seedfall exec` and wazero
   v1.12.0, interleaved, each with -n -1 (exit at the start of main: process,
   loading, Go runtime init), -n 0 (boot: raft elects, nats-server starts and
   creates its stream) and -n N (boot, then N commands or publishes): medians
   and spread (min-max) of wall and user+sys CPU per runner, the program's own
   start (0 minus -1) and the cost of the work alone (N minus 0), with ratios. seedfall's clock is
   virtual, so its waits for timers cost no wall time while wazero and native
   wait them out: the CPU column is the engine comparison, the wall column
   what a user waits. JetStream's store is on tmpfs for native and wazero.
2. `seedfall run` of examples/raftkv and examples/natsjs configs with -j 1
   and -j 2: seeds per second, and real time per virtual second from the
   --json totals (virtual time of each seed summed against the sweep's real
   time).
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p.stdout


def spread(xs):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


# Each program: its default -n, and how each runner names JetStream's store
# (native and wazero on tmpfs, so no runner pays for a real fsync; seedfall's
# disk is in memory anyway).
PROGRAMS = {
    "raft3": {"n": "30000", "what": "3 hashicorp/raft nodes in one process, elect then commit", "unit": "commands"},
    "nats1": {"n": "2000", "what": "one JetStream node with a file stream (SyncAlways), boot then publish",
              "unit": "acknowledged publishes"},
}

# The sweeps: example, config, what it is (passing configs only).
SWEEPS = [
    ("raftkv", "durable.json", "3 nodes, 4 clients writing"),
    ("raftkv", "lin.json", "3 nodes, 4 clients, reads through the log"),
    ("natsjs", "single.fixed.json", "1 JetStream node, a client publishing, crashes mid-I/O"),
    ("natsjs", "cluster.json", "3 JetStream nodes, an R3 stream, crashes and partitions"),
]


def data_args(runner, d, prog):
    if prog != "nats1":
        return []
    return {"native": ["-data", os.path.join(d["shm"], "native")], "seedfall": ["-data", "/data"],
            "wazero": ["-data", "/data/store"]}[runner]


def engine_table(prog, d, sf, wz, rounds, n):
    wasm = os.path.join(d["out"], f"{prog}.wasm")
    wz_mount = ["-mount", f"{os.path.join(d['shm'], 'wazero')}:/data"] if prog == "nats1" else []
    runners = {
        "native": lambda k: ([os.path.join(d["out"], f"{prog}.native"), "-n", k] + data_args("native", d, prog),
                             {"GOMAXPROCS": "1"}),
        "seedfall": lambda k: ([sf, "exec", "--cache-dir", os.path.join(d["out"], "sf-cache"), wasm, "-n", k]
                               + data_args("seedfall", d, prog), None),
        "wazero": lambda k: ([wz, "run", "-cachedir", os.path.join(d["out"], "wz-cache")] + wz_mount
                             + [wasm, "-n", k] + data_args("wazero", d, prog), None),
    }
    kinds = ("-1", "0", n)
    res = {(r, k): [] for r in runners for k in kinds}
    outputs = {}
    for rnd in range(rounds):
        order = list(runners)[rnd % 3:] + list(runners)[:rnd % 3]
        for r in order:
            for k in kinds:
                cmd, env = runners[r](k)
                wall, cpu, out = run(cmd, env)
                if outputs.setdefault(k, out) != out:
                    sys.exit(f"{r} -n {k} printed {out!r}, expected {outputs[k]!r}")
                res[(r, k)].append((wall, cpu))
        print(f"{prog} round {rnd + 1}/{rounds} done", file=sys.stderr, flush=True)

    info = PROGRAMS[prog]
    print(f"\n### {prog}: {info['what']} {n} {info['unit']} ({rounds} rounds, median (min-max), seconds)\n")
    print("| runner | wall: empty main | boot | boot + work | CPU: empty main | boot | boot + work "
          "| start (boot − empty main), wall / CPU | CPU of the work |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    work_cpu, start_wall = {}, {}
    for r in runners:
        wall = {k: [x[0] for x in res[(r, k)]] for k in kinds}
        cpu = {k: [x[1] for x in res[(r, k)]] for k in kinds}
        med = lambda xs: statistics.median(xs)
        work_cpu[r] = med(cpu[n]) - med(cpu["0"])
        start_wall[r] = med(wall["0"]) - med(wall["-1"])
        start_cpu = med(cpu["0"]) - med(cpu["-1"])
        print(f"| {r} | {spread(wall['-1'])} | {spread(wall['0'])} | {spread(wall[n])} | {spread(cpu['-1'])} | "
              f"{spread(cpu['0'])} | {spread(cpu[n])} | {start_wall[r]:.3f} / {start_cpu:.3f} | {work_cpu[r]:.3f} |")
    print(f"\nCPU of the work: wazero/seedfall **{work_cpu['wazero'] / work_cpu['seedfall']:.2f}×**, "
          f"seedfall/native {work_cpu['seedfall'] / work_cpu['native']:.2f}×", end="")
    if min(start_wall.values()) > 0.001:  # raft3's start is too short to compare
        print(f". Start (wall): wazero/seedfall **{start_wall['wazero'] / start_wall['seedfall']:.2f}×**, "
              f"seedfall/native {start_wall['seedfall'] / start_wall['native']:.2f}×", end="")
    print()


def sweep_table(sf, d, seeds):
    for example, config, _ in SWEEPS:  # builds the Go programs and fills the cache, untimed
        subprocess.run([sf, "run", "-c", os.path.join(ROOT, "examples", example, config), "-seeds", "1"],
                       capture_output=True, check=False)
    print(f"\n### sweeps, seeds {seeds} (release binary)\n")
    print("| example config | what | jobs | seeds/s | real s per seed | virtual s per seed | faster than real time |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for example, config, what in SWEEPS:
        for jobs in ("1", "2"):
            summary = os.path.join(d["out"], f"{example}.{config}.{jobs}.json")
            t0 = time.perf_counter()
            subprocess.run([sf, "run", "-c", os.path.join(ROOT, "examples", example, config), "-seeds", seeds,
                            "-j", jobs, "--json", summary], capture_output=True, check=False)
            wall = time.perf_counter() - t0
            s = json.load(open(summary))
            if s["failed"] or s["errors"]:
                sys.exit(f"{example}/{config}: the sweep did not pass: {s['failed']} failed, {s['errors']} errors")
            count, virtual = s["seeds"], s["totals"]["virtual_ns"] / 1e9
            print(f"| {example} {config} | {what} | {jobs} | {count / wall:.2f} | {wall / count:.2f} | "
                  f"{virtual / count:.1f} | {virtual / wall:.1f}× |")


def main(argv):
    opts = {"--rounds": "5", "--seeds": "1-10", "--programs": "raft3,nats1"}
    it = iter(argv)
    for a in it:
        opts[a] = next(it)
    d = {"out": opts["--dir"], "shm": opts["--shm"]}
    sf, wz, rounds = opts["--seedfall"], opts["--wazero"], int(opts["--rounds"])
    for prog in opts["--programs"].split(","):
        engine_table(prog, d, sf, wz, rounds, opts.get(f"--n-{prog}", PROGRAMS[prog]["n"]))
    if opts["--seeds"] != "none":
        sweep_table(sf, d, opts["--seeds"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
