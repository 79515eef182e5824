#!/usr/bin/env bash
# `seedfall cause` with and without the shared prefix (a benchmark, not a
# test; see bench/README.md).
#
#   bench/cause.sh [--rounds N] [--config FILE] [--seed N]   (defaults 5, examples/kvlog/cause.json, 1)
#
# Times the same cause run (20 futures per moment, all cores) forked from
# each moment (the default) and replaying each future's prefix
# (`--no-fork`, the reference tool's way), alternating the two in every
# round, and prints the median wall time of each with its spread and the
# ratio. The cache is warmed first, so no compile is timed; both modes must
# report the same curve (checked). Raw output in target/bench/cause/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/cause"
ROUNDS=5
CONFIG="$ROOT/examples/kvlog/cause.json"
SEED=1
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --config) CONFIG="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q -p seedfall)
SEEDFALL="$ROOT/target/release/seedfall"
export SEEDFALL_CACHE_DIR="$OUT/cache"
"$SEEDFALL" run -c "$CONFIG" -seeds "$SEED" >/dev/null || true
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq 1 "$ROUNDS"); do
    for mode in fork replay; do
        flag=()
        [ "$mode" = replay ] && flag=(--no-fork)
        start=$(date +%s.%N)
        "$SEEDFALL" cause -c "$CONFIG" -seed "$SEED" "${flag[@]}" --json "$OUT/$mode-$round.json" >/dev/null
        end=$(date +%s.%N)
        echo "$mode $round $(echo "$end - $start" | bc)" >>"$OUT/times.txt.partial"
    done
done
mv "$OUT/times.txt.partial" "$OUT/times.txt"
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = {"fork": [], "replay": []}
for line in open(f"{out}/times.txt"):
    mode, _, secs = line.split()
    times[mode].append(float(secs))
curves = {m: [(p["at"], p["failing"]) for p in json.load(open(f"{out}/{m}-1.json"))["moments"]] for m in times}
assert curves["fork"] == curves["replay"], "the two modes disagree on the curve"
doc = json.load(open(f"{out}/fork-1.json"))
futures = sum(p["futures"] for p in doc["moments"])
jump = doc["biggest_jump"]
print(f"cause seed 1: {futures} futures from {len(doc['moments'])} moments; biggest jump "
      f"{jump['from']:.0%} -> {jump['to']:.0%} after {jump['after']['kind']} {jump['after']['node']}")
print("| mode | median wall | min–max | futures/s |")
print("|---|---|---|---|")
for mode, label in [("fork", "shared prefix (fork)"), ("replay", "replaying the prefix")]:
    t = times[mode]
    med = statistics.median(t)
    print(f"| {label} | {med:.2f} s | {min(t):.2f}–{max(t):.2f} s | {futures / med:.0f} |")
ratio = statistics.median(times["replay"]) / statistics.median(times["fork"])
print(f"shared prefix is {ratio:.2f}x faster (median over {rounds} rounds); goal: <= 6 s -> "
      + ("met" if statistics.median(times["fork"]) <= 6 else "NOT met"))
PY
