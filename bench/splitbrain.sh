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
# time against the goal (5,000 seeds in <= 60 s). It also records the
# CPU time (user + system) of each sweep and the load average around it:
# on a machine shared with other work the wall time measures the sharing
# too, and seeds per CPU-second times the worker count is what the sweep
# would reach with the cores to itself (an estimate: it assumes the
# workers scale perfectly). Every round must pass: a failing seed in the
# clean config is a false alarm, and the script stops. Raw output (each
# round's --json and output) in target/bench/splitbrain/.
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
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    if ! /usr/bin/time -f "%e %U %S" -o "$OUT/round-$round.time" \
        "$SEEDFALL" run -c "$CONFIG" -seeds "$SEEDS" "${JOBS[@]}" --json "$OUT/round-$round.json" >"$OUT/round-$round.txt" 2>&1; then
        echo "round $round did not pass (a false alarm in a clean config?):" >&2
        tail -n 20 "$OUT/round-$round.txt" >&2
        exit 1
    fi
    read -r wall user sys <"$OUT/round-$round.time"
    echo "$round $wall $user $sys $load_before $(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/times.txt.partial"
    echo "round $round: $wall s wall, $user s user, $sys s system; load average $load_before before, $(cut -d' ' -f1 /proc/loadavg) after" >&2
done
mv "$OUT/times.txt.partial" "$OUT/times.txt"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$OUT" "$ROUNDS" "${JOBS[1]:-$(nproc)}" <<'PY'
import json, statistics, sys
out, rounds, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [line.split() for line in open(f"{out}/times.txt")]
walls = [float(r[1]) for r in rows]
cpus = [float(r[2]) + float(r[3]) for r in rows]
loads = [float(x) for r in rows for x in r[4:6]]
doc = json.load(open(f"{out}/round-1.json"))
n = doc["passed"] + doc["failed"]
rates = [n / w for w in walls]
med = statistics.median(walls)
cpu_rates = [n / c * jobs for c in cpus]
print(f"splitbrain sweep: {n} seeds, -j {jobs}, {rounds} rounds; load average {min(loads):.1f}-{max(loads):.1f} around them")
print("| median wall | min–max wall | median seeds/s | min–max seeds/s | CPU s (median) | seeds per CPU-s × jobs (median, min–max) | horizon seeds |")
print("|---|---|---|---|---|---|---|")
print(f"| {med:.1f} s | {min(walls):.1f}–{max(walls):.1f} s | {n / med:.1f} | {min(rates):.1f}–{max(rates):.1f} "
      f"| {statistics.median(cpus):.1f} | {statistics.median(cpu_rates):.1f} ({min(cpu_rates):.1f}–{max(cpu_rates):.1f}) | {doc.get('horizon', '?')} |")
goal = 5000 / 60
print(f"goal: 5,000 seeds in <= 60 s ({goal:.1f} seeds/s) -> " + ("met" if n / med >= goal else "not met")
      + f" (5,000 seeds at the median rate: {5000 / (n / med):.1f} s; with the cores to itself, about "
      + f"{5000 / statistics.median(cpu_rates):.1f} s)")
PY
