#!/usr/bin/env bash
# Sweep throughput of examples/splitbrain (a benchmark, not a test; see
# bench/README.md): five go.etcd.io/raft/v3 nodes and a workload per seed,
# partitions and a heal, no two leaders in one term.
#
#   bench/splitbrain.sh [--rounds N] [--seeds LIST] [-j N] [--config FILE]
#                       (defaults 3, 1-5000, all cores, examples/splitbrain/seedfall.json)
#
# Builds the release seedfall, warms the compiled-code cache with a short
# sweep (so no compile is timed), then times the sweep N times and prints
# the median seeds per second with the min-max over rounds and the wall
# time against the goal (5,000 seeds in <= 60 s). Every round must pass:
# a failing seed in the clean config is a false alarm, and the script
# stops. Raw output (each round's --json) in target/bench/splitbrain/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/bench/splitbrain"
ROUNDS=3
SEEDS=1-5000
JOBS=()
CONFIG="$ROOT/examples/splitbrain/seedfall.json"
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        -j) JOBS=(-j "$2"); shift 2 ;;
        --config) CONFIG="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
rm -f "$OUT/times.txt.partial"
(cd "$ROOT" && cargo build --release -q -p seedfall)
SEEDFALL="$TARGET/release/seedfall"
export SEEDFALL_CACHE_DIR="${SEEDFALL_CACHE_DIR:-$OUT/cache}"
"$SEEDFALL" run -c "$CONFIG" -seeds 1-4 "${JOBS[@]}" >/dev/null
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq 1 "$ROUNDS"); do
    start=$(date +%s.%N)
    if ! "$SEEDFALL" run -c "$CONFIG" -seeds "$SEEDS" "${JOBS[@]}" --json "$OUT/round-$round.json" >"$OUT/round-$round.txt" 2>&1; then
        echo "round $round did not pass (a false alarm in a clean config?):" >&2
        tail -n 20 "$OUT/round-$round.txt" >&2
        exit 1
    fi
    end=$(date +%s.%N)
    echo "$round $(echo "$end - $start" | bc)" >>"$OUT/times.txt.partial"
    echo "round $round: $(tail -n 1 "$OUT/times.txt.partial" | cut -d' ' -f2) s" >&2
done
mv "$OUT/times.txt.partial" "$OUT/times.txt"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$OUT" "$ROUNDS" "$SEEDS" "${JOBS[1]:-$(nproc)}" <<'PY'
import json, statistics, sys
out, rounds, seeds, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
walls = [float(line.split()[1]) for line in open(f"{out}/times.txt")]
doc = json.load(open(f"{out}/round-1.json"))
n = doc["seeds"] if isinstance(doc.get("seeds"), int) else doc.get("passed", 0) + doc.get("failed", 0)
rates = [n / w for w in walls]
med = statistics.median(walls)
print(f"splitbrain sweep: {n} seeds, -j {jobs}, {rounds} rounds")
print("| median wall | min–max wall | median seeds/s | min–max seeds/s | horizon seeds |")
print("|---|---|---|---|---|")
print(f"| {med:.1f} s | {min(walls):.1f}–{max(walls):.1f} s | {n / med:.0f} | {min(rates):.0f}–{max(rates):.0f} | {doc.get('horizon', '?')} |")
goal = 5000 / 60
print(f"goal: 5,000 seeds in <= 60 s ({goal:.0f} seeds/s) -> " + ("met" if n / med >= goal else "not met")
      + f" (5,000 seeds at the median rate: {5000 / (n / med):.1f} s)")
PY
