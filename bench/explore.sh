#!/usr/bin/env bash
# `seedfall explore` with futures forked from their branch point against
# replaying each future's prefix (a benchmark, not a test; see bench/README.md).
#
#   bench/explore.sh [--rounds N] [--config FILE] [--seeds LIST] [--budget N]
#                    (defaults 5, examples/raftkv/lin.json, 1-2, 40)
#
# Times the same exploration (a run budget, so both modes make the same runs:
# checked by the trace digest) forked (the default) and with --no-fork,
# alternating the two in every round, and prints the median wall time of
# each with its spread and the ratio. The cache is warmed first. Raw output
# in target/bench/explore/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/explore"
ROUNDS=5
CONFIG="$ROOT/examples/raftkv/lin.json"
SEEDS=1-2
BUDGET=40
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --config) CONFIG="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        --budget) BUDGET="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q -p seedfall)
SEEDFALL="$ROOT/target/release/seedfall"
export SEEDFALL_CACHE_DIR="$OUT/cache"
"$SEEDFALL" explore -c "$CONFIG" -seeds 1 -budget 1 >/dev/null || true
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rm -f "$OUT/times.txt"
for round in $(seq 1 "$ROUNDS"); do
    for mode in fork replay; do
        flag=()
        [ "$mode" = replay ] && flag=(--no-fork)
        start=$(date +%s.%N)
        "$SEEDFALL" explore -c "$CONFIG" -seeds "$SEEDS" -budget "$BUDGET" "${flag[@]}" \
            --json "$OUT/$mode-$round.json" >/dev/null || true
        end=$(date +%s.%N)
        echo "$mode $round $(echo "$end - $start" | bc)" >>"$OUT/times.txt"
    done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = {"fork": [], "replay": []}
for line in open(f"{out}/times.txt"):
    mode, _, secs = line.split()
    times[mode].append(float(secs))
docs = {m: json.load(open(f"{out}/{m}-1.json")) for m in times}
assert docs["fork"]["trace_digest"] == docs["replay"]["trace_digest"], "the two modes made different runs"
runs = docs["fork"]["runs"]
print(f"explore {docs['fork']['config']} seeds {docs['fork']['seeds']}: {runs} runs, "
      f"{docs['fork']['generations']} generations, same trace digest in both modes")
print("| mode | median wall | min–max | runs/s |")
print("|---|---|---|---|")
for mode, label in [("fork", "forked from the branch point"), ("replay", "replaying the prefix")]:
    t = times[mode]
    med = statistics.median(t)
    print(f"| {label} | {med:.2f} s | {min(t):.2f}–{max(t):.2f} s | {runs / med:.1f} |")
ratio = statistics.median(times["replay"]) / statistics.median(times["fork"])
print(f"forking is {ratio:.2f}x the speed of replaying (median over {rounds} rounds)")
PY
