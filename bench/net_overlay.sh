#!/usr/bin/env bash
# What net_overlay costs (a benchmark, not a test). See bench/README.md.
#
#   bench/net_overlay.sh [--seeds 1-100] [--rounds 5]
#
# The same service (bench/go/netecho: 20 connections x 20 echo round trips)
# built once against the SDK's sim.Listen/sim.Dial (sim.json) and once with
# plain net.Listen/net.Dial under "net_overlay": true (overlay.json). Each
# round sweeps both configs with -j 1 in one run of this script (warm cache,
# one untimed warm-up each), alternating, and reads seeds per second from
# the sweep's summary line. Prints the median and spread (min-max) of each
# and the overhead of the overlay's median; goal <= 10%.
# SEEDFALL overrides the binary (default: target/release/seedfall, rebuilt).
# Raw output in target/bench/net_overlay/.
set -euo pipefail
SEEDS=1-100
ROUNDS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) SEEDS="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        *) echo "usage: $0 [--seeds LIST] [--rounds N]" >&2; exit 2 ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/net_overlay"
mkdir -p "$OUT"
cd "$ROOT"
if [ -z "${SEEDFALL:-}" ]; then
    cargo build --release -q -p seedfall
    SEEDFALL="$ROOT/target/release/seedfall"
fi
DIR=bench/go/netecho
for c in sim overlay; do
    echo "== warm-up $c" >&2
    "$SEEDFALL" run -c "$DIR/$c.json" -seeds 1-2 -j 1 > "$OUT/warmup-$c.txt"
done
for r in $(seq 1 "$ROUNDS"); do
    for c in sim overlay; do
        echo "== round $r: $c $SEEDS" >&2
        "$SEEDFALL" run -c "$DIR/$c.json" -seeds "$SEEDS" -j 1 > "$OUT/$c-$r.txt"
    done
done
python3 - "$OUT" "$ROUNDS" <<'PY' | tee "$OUT/table.md"
import re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rates(c):
    # "N seeds in 3.8s (5.2 seeds/s on 1 workers): ..."
    return [float(re.search(r"\(([\d.]+) seeds/s", open(f"{out}/{c}-{r}.txt").read()).group(1)) for r in range(1, rounds + 1)]
sim, ovl = rates("sim"), rates("overlay")
print("| build | seeds/s median | spread (min-max) |")
print("|---|---|---|")
for name, v in (("sim.Listen/sim.Dial", sim), ("net_overlay (net.Listen/net.Dial)", ovl)):
    print(f"| {name} | {statistics.median(v):.1f} | {min(v):.1f}-{max(v):.1f} |")
overhead = statistics.median(sim) / statistics.median(ovl) - 1
print(f"\noverlay overhead: {overhead*100:+.1f}% (goal <= 10%)")
PY
