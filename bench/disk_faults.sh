#!/usr/bin/env bash
# What the disk fault kinds cost a sweep (a benchmark, not a test). See bench/README.md.
#
#   bench/disk_faults.sh [--seeds 1-100] [--runs 5]
#
# The fixed kvlog store (examples/kvlog) swept twice per round with the
# release binary and a warm cache, -j 2, in alternating order: "off" with
# planned crashes only, "on" with the same crashes and every disk fault kind
# this build has (crash_on_io, torn_writes, fsync_eio, strict_dirs,
# write_eio, write_enospc, read_eio, read_corrupt). Reports seeds per second
# and real µs per scheduler step as medians with min-max over the rounds,
# the on/off ratio, and the machine's load average. Goal: on <= 1.3x off.
# Raw output in target/bench/disk-faults/.
set -euo pipefail
SEEDS=1-100
RUNS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) SEEDS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        *) echo "usage: $0 [--seeds LIST] [--runs N]" >&2; exit 2 ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/disk-faults"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall
SEEDFALL="$ROOT/target/release/seedfall"

# The configs live beside kvlog's so their package paths resolve.
OFF=examples/kvlog/.bench-disk-off.json
ON=examples/kvlog/.bench-disk-on.json
trap 'rm -f "$OFF" "$ON"' EXIT
common='"nodes": [{"name": "server", "pkg": "./server", "args": ["-variant", "fixed"], "supervise": true}],
  "workload": {"name": "client", "pkg": "./client"}, "duration": "20s"'
crashes='"crash_per_sec": 0.5, "crash_downtime": ["100ms", "1s"]'
echo "{ $common, \"faults\": { $crashes } }" > "$OFF"
echo "{ $common, \"faults\": { $crashes, \"crash_on_io\": 0.01, \"torn_writes\": true, \"fsync_eio\": 0.02,
  \"strict_dirs\": true, \"write_eio\": 0.01, \"write_enospc\": 0.01, \"read_eio\": 0.01, \"read_corrupt\": 0.01 } }" > "$ON"

echo "== warm-up (builds the kvlog programs, fills the cache)" >&2
"$SEEDFALL" run -c "$OFF" -seeds 1-2 >/dev/null || true
rm -f "$OUT"/*.json "$OUT"/*.txt
for round in $(seq 1 "$RUNS"); do
    order="off on"
    [ $((round % 2)) -eq 0 ] && order="on off"
    for mode in $order; do
        config="$OFF"
        [ "$mode" = on ] && config="$ON"
        echo "== round $round: $mode" >&2
        cat /proc/loadavg > "$OUT/$mode-$round.load"
        "$SEEDFALL" run -c "$config" -seeds "$SEEDS" -j 2 --json "$OUT/$mode-$round.json" > "$OUT/$mode-$round.txt" || true
    done
done

python3 - "$OUT" "$RUNS" <<'PY' | tee "$OUT/table.md"
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
def rounds(mode):
    rows = []
    for r in range(1, runs + 1):
        d = json.load(open(f"{out}/{mode}-{r}.json"))
        wall = float(open(f"{out}/{mode}-{r}.txt").read().split(" seeds in ")[1].split("s")[0])
        t = d["totals"]
        load = float(open(f"{out}/{mode}-{r}.load").read().split()[0])
        rows.append((d["seeds"] / wall, t["real_ms"] * 1e3 / t["steps"], t["steps"] / d["seeds"], load))
    return rows
def spread(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"
off, on = rounds("off"), rounds("on")
print("| sweep of the fixed kvlog store, -j 2 | seeds/s | µs per step | steps per seed | load avg |")
print("|---|---|---|---|---|")
for name, rows in (("crashes only (off)", off), ("every disk fault kind (on)", on)):
    cols = list(zip(*rows))
    print(f"| {name} | {spread(cols[0], '{:.2f}')} | {spread(cols[1], '{:.1f}')} | "
          f"{statistics.median(cols[2]):.0f} | {spread(cols[3], '{:.2f}')} |")
ratio = statistics.median(r[0] for r in off) / statistics.median(r[0] for r in on)
step = statistics.median(r[1] for r in on) / statistics.median(r[1] for r in off)
verdict = "met" if ratio <= 1.3 else "NOT met"
print(f"\nTime per seed, on / off: {ratio:.2f}x (goal <= 1.3x: {verdict}); per scheduler step: {step:.2f}x.")
PY
