#!/usr/bin/env python3
"""Tables for bench/lincheck.sh: per file, the median time with min-max of seedfall-check and of Porcupine
(GOMAXPROCS=1 and all cores), the ratio of medians (seedfall / Porcupine), and the geometric mean of the
ratios over all files. Fails if the two checkers disagree on any verdict.

    lincheck.py DIR      (DIR holds seedfall.jsonl, porcupine-1.jsonl, porcupine.jsonl)
"""

import json
import math
import statistics
import sys


def load(path):
    times, verdicts = {}, {}
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            times.setdefault(row["file"], []).append(row["ns"])
            verdicts[row["file"]] = row["linearizable"]
    return times, verdicts


def ms(ns):
    return f"{ns / 1e6:.3f}"


def spread(samples):
    return f"{ms(statistics.median(samples))} ({ms(min(samples))}–{ms(max(samples))})"


def main():
    out = sys.argv[1]
    ours, our_verdicts = load(f"{out}/seedfall.jsonl")
    peers = {name: load(f"{out}/{name}.jsonl") for name in ("porcupine-1", "porcupine")}
    for name, (_, verdicts) in peers.items():
        wrong = sorted(f for f in verdicts if verdicts[f] != our_verdicts[f])
        if wrong:
            sys.exit(f"verdicts differ from {name}: {wrong}")
    files = sorted(ours)
    runs = min(len(v) for v in ours.values())
    print(f"\n{len(files)} histories, {runs} runs each; times in ms, median (min–max)\n")
    print("| file | linearizable | seedfall | Porcupine, 1 core | ratio | Porcupine, all cores | ratio |")
    print("|---|---|---|---|---|---|---|")
    logs = {name: [] for name in peers}
    totals = {"seedfall": 0, **{name: 0 for name in peers}}
    for f in files:
        mine = statistics.median(ours[f])
        totals["seedfall"] += mine
        cells = []
        for name, (times, _) in peers.items():
            theirs = statistics.median(times[f])
            totals[name] += theirs
            logs[name].append(math.log(mine / theirs))
            cells += [spread(times[f]), f"{mine / theirs:.2f}"]
        print(f"| {f} | {our_verdicts[f]} | {spread(ours[f])} | " + " | ".join(cells) + " |")
    geo = {name: math.exp(sum(v) / len(v)) for name, v in logs.items()}
    print(
        f"| **all** (sum of medians; geomean of ratios) | | {ms(totals['seedfall'])} | {ms(totals['porcupine-1'])} | "
        f"**{geo['porcupine-1']:.2f}** | {ms(totals['porcupine'])} | **{geo['porcupine']:.2f}** |"
    )


if __name__ == "__main__":
    main()
