#!/usr/bin/env python3
"""Cost of the preemption entry checks (docs/preemption.md) on the guest-CPU programs.

Runs every program under `seedfall exec` with the checks (default) and without
(`--no-entry-checks`), alternating the order each round (ABBA), both cache hits
(compile excluded). Reports per program the medians of wall and CPU (user+sys)
time, their ratio checks/no-checks, the spread of the per-round ratios
(min..max), and the geomean of the ratios. A benchmark, not a test: see
bench/README.md. Called by bench/entry_checks.sh, which builds everything.
"""
import json, os, resource, statistics, subprocess, sys, time

seedfall, out_dir, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
programs = sys.argv[4:]
CONFIGS = {"checks": [], "no-checks": ["--no-entry-checks"]}


def run(program, flags):
    # One cache per program and configuration: the cache keeps only the 8 most recently used
    # sets, and 2 configurations of 10 programs would evict each other (every run a compile).
    cache = os.path.join(out_dir, "cache", program + ("-" + "-".join(flags) if flags else ""))
    env = dict(os.environ, SEEDFALL_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run([seedfall, "exec", *flags, os.path.join(out_dir, program + ".wasm")],
                       env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{program} {flags}: exit {p.returncode}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""


# Warm both caches and check that the outputs agree (a checksum line per program).
for program in programs:
    outs = {name: run(program, flags)[2] for name, flags in CONFIGS.items()}
    if len(set(outs.values())) != 1:
        sys.exit(f"{program}: outputs differ between configurations: {outs}")

results = {p: {c: {"wall": [], "cpu": []} for c in CONFIGS} for p in programs}
with open(os.path.join(out_dir, "results.jsonl"), "w") as log:
    for r in range(rounds):
        order = list(CONFIGS) if r % 2 == 0 else list(reversed(list(CONFIGS)))
        for program in programs:
            for name in order:
                wall, cpu, _ = run(program, CONFIGS[name])
                results[program][name]["wall"].append(wall)
                results[program][name]["cpu"].append(cpu)
                log.write(json.dumps({"round": r, "program": program, "config": name, "wall": wall, "cpu": cpu}) + "\n")
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)


def table(metric):
    lines = [f"| program | checks s | no checks s | ratio (of medians) | per-round ratios min..max |",
             "|---|---:|---:|---:|---:|"]
    ratios = []
    for program in programs:
        a, b = results[program]["checks"][metric], results[program]["no-checks"][metric]
        ratio = statistics.median(a) / statistics.median(b)
        per_round = [x / y for x, y in zip(a, b)]
        ratios.append(ratio)
        lines.append(f"| {program} | {statistics.median(a):.3f} | {statistics.median(b):.3f} | {ratio:.3f} "
                     f"| {min(per_round):.3f}..{max(per_round):.3f} |")
    geo = statistics.geometric_mean(ratios)
    lines.append(f"| **geomean** | | | **{geo:.3f}** ({(geo - 1) * 100:+.1f}%) | |")
    return "\n".join(lines)


report = (f"Wall time, median of {rounds} alternating rounds\n\n{table('wall')}\n\n"
          f"CPU time (user+sys), median of {rounds}\n\n{table('cpu')}\n")
with open(os.path.join(out_dir, "table.md"), "w") as f:
    f.write(report)
print(report)
