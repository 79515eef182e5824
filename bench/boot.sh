#!/usr/bin/env bash
# Boot cost and short-seed cost of this checkout against another commit, in
# one run, alternating the two builds (a benchmark, not a test):
#
#   bench/boot.sh [--base COMMIT] [--rounds 5] [--seeds 1-200]
#
# Each round, for base then this:
# 1. `world-costs boot` of the kvlog server, 101 boots (the first, which
#    builds the module's image, is dropped): instantiate, init (Go's runtime
#    init and main to the first park) and their sum, medians per round;
# 2. a `seedfall run` of examples/kvlog/seedfall.json over SEEDS with -j 1
#    (warm cache, --json): seeds per second of guest and host time (the
#    summary's real_ms, which leaves out building and loading), and the real
#    time of each failing seed of 700-1,100 steps, which --json times one by
#    one (the issue's "seed of ~900 steps").
# Prints medians with min-max over the rounds' samples, and this / base.
# The base is built in a git worktree under target/bench/boot/ (default:
# the commit before memories were kept warm, with the same boot timing).
set -euo pipefail
BASE=7c3e7ab
ROUNDS=5
SEEDS=1-200
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        *) echo "usage: $0 [--base COMMIT] [--rounds N] [--seeds LIST]" >&2; exit 2 ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/boot"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall -p seedfall-bench
BASE_TREE="$OUT/base-$BASE"
[ -d "$BASE_TREE" ] || git worktree add -q --detach "$BASE_TREE" "$BASE"
(cd "$BASE_TREE" && cargo build --release -q -p seedfall -p seedfall-bench)
declare -A DIR=([base]="$BASE_TREE/target/release" [this]="$ROOT/target/release")
CONFIG=examples/kvlog/seedfall.json
for which in base this; do
    # Warm-up: builds the kvlog programs and fills each build's cache.
    SEEDFALL_CACHE_DIR="$OUT/cache-$which" "${DIR[$which]}/seedfall" run -c "$CONFIG" -seeds 1-2 -j 1 >/dev/null || true
done
SERVER=examples/kvlog/.seedfall/build/seedfall.0-server.wasm
for round in $(seq "$ROUNDS"); do
    for which in base this; do
        echo "== round $round: $which" >&2
        "${DIR[$which]}/world-costs" boot --cache-dir "$OUT/cache-$which" --iterations 101 "$SERVER" -data /data \
            > "$OUT/boot-$which-$round.jsonl"
        # A sweep with failing seeds exits 1: only its --json matters here.
        SEEDFALL_CACHE_DIR="$OUT/cache-$which" "${DIR[$which]}/seedfall" run -c "$CONFIG" -seeds "$SEEDS" -j 1 \
            --json "$OUT/sweep-$which-$round.json" >/dev/null || true
    done
done
python3 - "$OUT" "$ROUNDS" "$BASE" "$SEEDS" <<'PY'
import json, statistics, sys
out, rounds, base, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def spread(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"
rows, med = {}, {}
for which in ("base", "this"):
    boots = [[json.loads(l) for l in open(f"{out}/boot-{which}-{r}.jsonl") if l.strip()][1:] for r in range(1, rounds + 1)]
    per_round = lambda key: [statistics.median(b[key] for b in round_) for round_ in boots]
    sweeps = [json.load(open(f"{out}/sweep-{which}-{r}.json")) for r in range(1, rounds + 1)]
    rate = [s["seeds"] * 1000 / s["totals"]["real_ms"] for s in sweeps]
    digests = {s["trace_digest"] for s in sweeps}
    # --json times the failing seeds one by one: those of 700-1,100 steps.
    short = [f["real_ms"] for s in sweeps for f in s["failures"] if 700 <= f["steps"] <= 1100]
    med[which] = {
        "instantiate": statistics.median(per_round("instantiate_ms")),
        "init": statistics.median(per_round("init_ms")),
        "boot": statistics.median(per_round("boot_ms")),
        "rate": statistics.median(rate),
        "short": statistics.median(short) if short else float("nan"),
    }
    rows[which] = [
        spread(per_round("instantiate_ms"), "{:.3f}") + " ms",
        spread(per_round("init_ms"), "{:.3f}") + " ms",
        spread(per_round("boot_ms"), "{:.3f}") + " ms",
        spread(rate, "{:.1f}") + " seeds/s",
        (spread(short, "{:.0f}") + f" ms ({len(short)} seeds)") if short else "no such seed",
        " ".join(sorted(d[:8] for d in digests)),
    ]
print(f"kvlog server boots (101 per round, medians per round) and kvlog sweeps {seeds} -j 1, {rounds} rounds alternating; base {base}")
print()
print("| measure | base | this | this / base |")
print("|---|---|---|---|")
names = ["instantiate", "init (runtime init + main to first park)", "boot (sum)", "sweep rate", "seed of 700-1,100 steps, real", "trace digest"]
keys = ["instantiate", "init", "boot", "rate", "short", None]
for i, (name, key) in enumerate(zip(names, keys)):
    ratio = f"{med['this'][key] / med['base'][key]:.2f}" if key else ""
    print(f"| {name} | {rows['base'][i]} | {rows['this'][i]} | {ratio} |")
PY
