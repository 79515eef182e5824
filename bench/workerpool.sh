#!/usr/bin/env bash
# `seedfall test -novelty` on examples/gotest/workerpool (a 4-worker job pool;
# detsim publishes 211 distinct schedule shapes in 1,005 trials of its own
# pool). A benchmark, not a test; see bench/README.md.
#
#   bench/workerpool.sh [--rounds N] [--seeds LIST]   (defaults 3, 1-1005)
#
# Each round sweeps the seeds with -novelty and a patience longer than the
# sweep (so every seed runs) and records the shapes found and the wall time;
# the shapes must be the same every round (checked). Prints shapes per
# trial, the curve, and the median wall time with its spread. The compiled
# code is warmed first. Raw output in target/bench/workerpool/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/workerpool"
ROUNDS=3
SEEDS=1-1005
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q -p seedfall)
SEEDFALL="$ROOT/target/release/seedfall"
export SEEDFALL_CACHE_DIR="$OUT/cache"
cd "$ROOT/examples/gotest"
"$SEEDFALL" test ./workerpool -seeds 1 >/dev/null
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rm -f "$OUT/times.txt"
for round in $(seq 1 "$ROUNDS"); do
    start=$(date +%s.%N)
    "$SEEDFALL" test ./workerpool -seeds "$SEEDS" -novelty -novelty-patience 100000000 \
        --json "$OUT/round-$round.json" >/dev/null
    end=$(date +%s.%N)
    echo "$round $(echo "$end - $start" | bc)" >>"$OUT/times.txt"
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = [float(line.split()[1]) for line in open(f"{out}/times.txt")]
novelty = [json.load(open(f"{out}/round-{r}.json"))["packages"][0]["tests"][0]["novelty"] for r in range(1, rounds + 1)]
assert all(n == novelty[0] for n in novelty), "the rounds found different shapes"
n = novelty[0]
curve = dict((seeds, shapes) for seeds, shapes in n["curve"])
by = lambda s: max([v for k, v in curve.items() if k <= s], default=0)
marks = [m for m in (10, 100, 1000) if m < n["seeds"]] + [n["seeds"]]
med = statistics.median(times)
print(f"workerpool: {n['shapes']} distinct schedule shapes in {n['seeds']} seeds "
      f"({n['shapes'] / n['seeds']:.3f} per trial); by seed: " + ", ".join(f"{by(m)}@{m}" for m in marks))
print(f"wall: median {med:.2f} s ({min(times):.2f}-{max(times):.2f} s over {rounds} rounds), "
      f"{n['seeds'] / med:.0f} seeds/s")
PY
