#!/usr/bin/env python3
"""Deep bugs: `seedfall explore` against flat sweeps of the same config
(a benchmark, not a test; bench/explore_deep.sh runs it, bench/README.md
has the figures).

For each bug and each of --starts starting seeds S (1, 100001, 200001, ...):
- flat: `seedfall run` of seeds S, S+1, ... in chunks until the first seed
  that fails with the bug's message (at most --flat-max seeds): the runs it
  took and their CPU time (the last chunk's CPU prorated to the failing seed);
- flat with `"swarm": true` (a copy of the config beside it), the same way;
- explore: `seedfall explore -seeds S..S+N-1 -budget B`: the run that first
  failed with the bug's message (`found_at_run`), then the same exploration
  again with that run budget (same seeds and run budget make the same runs)
  for its CPU time; its saved schedule is replayed (must fail the same way)
  and shrunk (must succeed).
It prints, per bug, the median and range of each and the ratios of the
medians (explore / the better flat mode). CPU time is the user+system time
of the seedfall processes and their children (forked futures included).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# (name, config, the failure's message, what it needs)
BUGS = [
    ("rosedb", "examples/wals/rosedb.deep.json", "acknowledged entry",
     "rosedblabs/wal: a crash tears a chunk, a later crash loses what was appended after it"),
    ("kvlog-torn-tail", "examples/kvlog/torn-tail.deep.json", "acknowledged entry",
     "kvlog torn-tail: a crash tears the tail, a later crash loses what was appended after it"),
    ("kvlog-fsync-retry", "examples/kvlog/fsync-retry.deep.json", "acknowledged entry",
     "kvlog fsync-retry: a failed fsync is retried and acknowledged, a later crash loses the write"),
    ("wal-pr22", "examples/wals/tidwall.pr22.deep.json", "the log opens after a restart",
     "tidwall/wal PR #22: a torn write, a shorter retry, a full segment, then a restart"),
]


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# Set by main: the binary, -j, and extra `explore` flags (--edges).
SEEDFALL, JOBS, EXPLORE_FLAGS = None, None, []


def seedfall(args, cwd):
    before = cpu_of_children()
    p = subprocess.run([SEEDFALL] + args, cwd=cwd, capture_output=True, text=True)
    return p, cpu_of_children() - before


def flat(config, message, start, chunk, most):
    """Runs and CPU seconds to the first seed failing with `message` (None: not within `most`)."""
    cwd, name = os.path.dirname(config), os.path.basename(config)
    done, cpu = 0, 0.0
    while done < most:
        n = min(chunk, most - done)
        first = start + done
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            p, spent = seedfall(["run", "-c", name, "--seeds", f"{first}-{first + n - 1}", "-j", str(JOBS),
                                 "--show-fails", "0", "--json", out.name], cwd)
            doc = json.load(open(out.name))
        failing = sorted(f["seed"] for f in doc["failures"] if message in json.dumps(f))
        if failing:
            k = failing[0] - first + 1
            return done + k, cpu + spent * k / n
        done, cpu = done + n, cpu + spent
    return None, cpu


def explore(config, message, start, seeds, budget):
    cwd, name = os.path.dirname(config), os.path.basename(config)
    span = f"{start}-{start + seeds - 1}"
    # Growing budgets: the first N runs are the same whatever the budget, so
    # a finding within a small one is found at the same run in a bigger one.
    for tried in sorted({min(budget, b) for b in (250, 1000, budget)}):
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            seedfall(["explore", "-c", name, "-seeds", span, "-budget", str(tried), "-j", str(JOBS),
                      "--json", out.name] + EXPLORE_FLAGS, cwd)
            doc = json.load(open(out.name))
        found = [f for f in doc["findings"] if message in f["failure"]]
        if found or doc["runs"] < tried:
            break
    if not found:
        return None, None, None, f"not found in {doc['runs']} runs: {doc['stopped']}"
    finding = min(found, key=lambda f: f["found_at_run"])
    runs = finding["found_at_run"]
    # The same exploration up to that run, for its CPU time.
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        _, cpu = seedfall(["explore", "-c", name, "-seeds", span, "-budget", str(runs), "-j", str(JOBS),
                           "--json", out.name] + EXPLORE_FLAGS, cwd)
        again = json.load(open(out.name))
    assert any(f["id"] == finding["id"] for f in again["findings"]), "the shorter exploration lost the finding"
    # Its schedule replays to the same failure and shrinks.
    schedule = finding["schedule"]
    p, _ = seedfall(["replay", "-c", name, "-seed", str(finding["seed"]), "-faults", schedule], cwd)
    assert p.returncode == 1 and message in p.stdout, f"{name}: {schedule} does not replay to the failure"
    p, _ = seedfall(["shrink", "-c", name, "-seed", str(finding["seed"]), "-faults", schedule, "--json", "-"], cwd)
    assert p.returncode == 0, f"{name}: {schedule} does not shrink: {p.stdout[-400:]} {p.stderr[-400:]}"
    shrunk = json.loads(p.stdout)
    return runs, cpu, len(shrunk["faults"]), doc["stopped"]


CLEAN = [("kvlog fixed", "examples/kvlog/seedfall.fixed.json", "1-10"),
         ("raftkv lin", "examples/raftkv/lin.json", "1-10")]


def clean(budget):
    """Explores each clean config to its plateau: the runs, why it stopped, its findings."""
    print(f"clean configs, run budget {budget}, explore flags {EXPLORE_FLAGS or 'none'}:")
    print("| config | seeds | runs | features | stopped | findings | wall |")
    print("|---|---|---|---|---|---|---|")
    for name, config, seeds in CLEAN:
        config = os.path.join(ROOT, config)
        began = time.monotonic()
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            seedfall(["explore", "-c", os.path.basename(config), "-seeds", seeds, "-budget", str(budget),
                      "-j", str(JOBS), "--json", out.name] + EXPLORE_FLAGS, os.path.dirname(config))
            doc = json.load(open(out.name))
        wall = time.monotonic() - began
        print(f"| {name} | {seeds} | {doc['runs']} | {doc['coverage'][-1]['features']} | {doc['stopped']} | "
              f"{len(doc['findings'])} | {wall:.0f} s |", flush=True)


def summary(values):
    got = [v for v in values if v is not None]
    misses = len(values) - len(got)
    # A miss counts as more than anything found, for the median.
    ranked = sorted(got) + [float("inf")] * misses
    median = statistics.median(ranked)
    spread = f"{min(got):.0f}-{max(got):.0f}" if got else "-"
    miss = f", {misses} not found" if misses else ""
    return median, f"{spread}{miss}"


def swarm_copy(config):
    doc = json.load(open(config))
    doc.setdefault("faults", {})["swarm"] = True
    path = os.path.join(os.path.dirname(config), ".bench-swarm." + os.path.basename(config))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def main():
    global SEEDFALL, JOBS, EXPLORE_FLAGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--seedfall", default=os.path.join(ROOT, "target/release/seedfall"))
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--explore-seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--flat-max", type=int, default=8000)
    ap.add_argument("--chunk", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--bugs", default=",".join(b[0] for b in BUGS))
    ap.add_argument("--clean", type=int, metavar="BUDGET",
                    help="instead: explore the clean configs (kvlog fixed, raftkv lin) to a plateau within BUDGET runs")
    ap.add_argument("--edges", action="store_true", help="explore with -edges (branch edges as coverage)")
    a = ap.parse_args()
    SEEDFALL, JOBS = a.seedfall, a.jobs
    EXPLORE_FLAGS = ["-edges"] if a.edges else []
    if a.clean:
        return clean(a.clean)
    wanted = a.bugs.split(",")
    rows = []
    for name, config, message, what in [b for b in BUGS if b[0] in wanted]:
        config = os.path.join(ROOT, config)
        swarm = swarm_copy(config)
        try:
            results = {"flat": [], "swarm": [], "explore": []}
            starts = [1 + 100000 * k for k in range(a.starts)]
            results["flat"] = [flat(config, message, start, a.chunk, a.flat_max) for start in starts]
            # Swarm only matters where it beats flat: past the most runs flat
            # needed at any start it cannot lower the median below flat's, so
            # it stops there (a miss then means "more than that").
            found = [r for r, _ in results["flat"] if r is not None]
            swarm_max = max(found) if len(found) == len(starts) else a.flat_max
            for k, start in enumerate(starts):
                results["swarm"].append(flat(swarm, message, start, a.chunk, swarm_max))
                runs, cpu, shrunk, stopped = explore(config, message, start, a.explore_seeds, a.budget)
                results["explore"].append((runs, cpu))
                print(f"{name} start {start}: flat {results['flat'][k][0]} runs, swarm {results['swarm'][-1][0]}, "
                      f"explore {runs} ({stopped}; shrunk to {shrunk} faults)", file=sys.stderr, flush=True)
        finally:
            os.remove(swarm)
        med = {m: summary([r for r, _ in v]) for m, v in results.items()}
        cpu = {m: summary([c if r is not None else None for r, c in v]) for m, v in results.items()}
        better = min(("flat", "swarm"), key=lambda m: med[m][0])
        rows.append((name, what, med, cpu, better))
    print(f"explore: {a.explore_seeds} starting seeds, run budget {a.budget}; flat sweeps up to {a.flat_max} seeds "
          "(swarm up to the most flat needed); "
          f"{a.starts} starting seeds each; -j {JOBS}; explore flags {EXPLORE_FLAGS or 'none'}")
    print("| bug | flat runs (median, range) | swarm runs | explore runs | explore / better flat: runs | CPU |")
    print("|---|---|---|---|---|---|")
    for name, what, med, cpu, better in rows:
        ratio_runs = med["explore"][0] / med[better][0]
        ratio_cpu = cpu["explore"][0] / cpu[better][0]
        cell = lambda m: f"{med[m][0]:.0f} ({med[m][1]})" if med[m][0] != float("inf") else f"not found ({med[m][1]})"
        print(f"| {name} | {cell('flat')} | {cell('swarm')} | {cell('explore')} | {ratio_runs:.3f} | {ratio_cpu:.3f} |")
    for name, what, *_ in rows:
        print(f"- {name}: {what}")


if __name__ == "__main__":
    main()
