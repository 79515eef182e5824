#!/usr/bin/env bash
# Shrink throughput (a benchmark, not a test). See bench/README.md.
#
#   bench/shrink.sh [-j N]
#
# For each hostile kvlog config (examples/kvlog/hostile*.json: the three buggy
# variants under 30 partitions per second on top of their crash and disk
# faults), finds the lowest failing seed of 1-20 and runs `seedfall shrink` on
# it, then prints faults before and after, runs, wall time and runs per
# second. The cache is warmed first, so no compile is timed. Raw output in
# target/bench/shrink/.
set -euo pipefail
JOBS=()
[ "${1:-}" = "-j" ] && JOBS=(-j "$2")
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/shrink"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall
SEEDFALL="$ROOT/target/release/seedfall"
echo "| variant (config) | seed | faults before → after | duration after | workload ops after | runs | wall time | runs/s |"
echo "|---|---|---|---|---|---|---|---|"
for config in hostile hostile-torn-tail hostile-fsync-retry; do
    file="examples/kvlog/$config.json"
    "$SEEDFALL" run -c "$file" -seeds 1-20 --json "$OUT/$config-sweep.json" >/dev/null || true
    seed=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['lowest_failing_seed'])" "$OUT/$config-sweep.json")
    "$SEEDFALL" shrink -c "$file" -seed "$seed" "${JOBS[@]}" --json "$OUT/$config-shrink.json" > "$OUT/$config-shrink.txt"
    python3 - "$OUT/$config-shrink.json" "$config" "$seed" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
before, after, runs = doc["before"], doc["after"], doc["runs"]
seconds = doc["elapsed_ms"] / 1000
ops = after["ops"] if after["ops"] is not None else "default"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {before['faults']} → {after['faults']} | {after['duration']} | {ops} | "
      f"{runs} | {seconds:.1f} s | {runs / max(seconds, 1e-9):.1f} |")
PY
done
