#!/usr/bin/env bash
# What the trace hash costs a sweep: kvlog seeds per second of this checkout
# against another commit (default: the one before the trace hash covered host
# writes and every incarnation's memory), measured in one run, alternating
# the two binaries, median and min-max over RUNS sweeps each.
#
#   bench/trace_cost.sh [--base COMMIT] [--seeds 1-200] [--runs 5]
#
# The base is built in a git worktree under target/bench/trace-cost/.
set -euo pipefail
BASE=0d33af8
SEEDS=1-200
RUNS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        *) echo "usage: $0 [--base COMMIT] [--seeds LIST] [--runs N]" >&2; exit 2 ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/trace-cost"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall
BASE_TREE="${BASE_TREE:-$OUT/base-$BASE}"
if [ ! -d "$BASE_TREE" ]; then
    git worktree add -q --detach "$BASE_TREE" "$BASE"
fi
(cd "$BASE_TREE" && cargo build --release -q -p seedfall)
CONFIG=examples/kvlog/seedfall.json
declare -A BIN=([base]="$BASE_TREE/target/release/seedfall" [this]="$ROOT/target/release/seedfall")
for which in base this; do
    # Warm-up: builds the kvlog programs and fills each binary's cache.
    SEEDFALL_CACHE_DIR="$OUT/cache-$which" "${BIN[$which]}" run -c "$CONFIG" -seeds 1-2 -j 1 >/dev/null || true
done
: > "$OUT/runs.txt"
for i in $(seq "$RUNS"); do
    for which in base this; do
        # A sweep with failing seeds exits 1: only its summary line matters here.
        line=$(SEEDFALL_CACHE_DIR="$OUT/cache-$which" "${BIN[$which]}" run -c "$CONFIG" -seeds "$SEEDS" -j 1 |
            grep " seeds in " || true)
        rate=$(echo "$line" | sed -E 's/.*\(([0-9.]+) seeds\/s.*/\1/')
        echo "$which $rate" | tee -a "$OUT/runs.txt" >&2
    done
done
python3 - "$OUT/runs.txt" "$BASE" "$SEEDS" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rate = {w: sorted(float(r) for k, r in rows if k == w) for w in ("base", "this")}
med = {w: statistics.median(v) for w, v in rate.items()}
print(f"kvlog sweep {sys.argv[3]}, -j 1, {len(rate['this'])} runs each, load average {sys.argv[4]} at the end")
for w in ("base", "this"):
    print(f"  {w:4}: {med[w]:.1f} seeds/s (min {rate[w][0]:.1f}, max {rate[w][-1]:.1f})")
change = med["this"] / med["base"] - 1
print(f"  this / {sys.argv[2]}: {med['this'] / med['base']:.3f} ({change * 100:+.1f}%; goal: no worse than -5%)")
PY
