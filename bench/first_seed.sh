#!/usr/bin/env bash
# Time to the first seed of a cold `seedfall run` (an empty compiled-code
# cache, Go's build cache warm) of this checkout against another commit, in
# one run, alternating (a benchmark, not a test):
#
#   bench/first_seed.sh [--base COMMIT] [--rounds 5] [--config examples/natsjs/single.json]
#
# Each round runs, one after another, each with a fresh cache directory:
#   base    the base build (default: the commit before issue 40's changes);
#   eager   this build with SEEDFALL_EAGER_COMPILE=1 (every function first);
#   lazy    this build as users run it (functions compiled when first called);
#   stored  this build again on the cache `lazy` left: the next process, which
#           loads what the first compiled and compiles only what is new.
# Each is `seedfall run -c CONFIG -seeds 1`: the process's wall time is the
# time to the first seed's result. Prints medians with min-max over the
# rounds, the part that is `go build` (the same for all), and ratios to base.
set -euo pipefail
BASE=7c3e7ab
ROUNDS=5
CONFIG=examples/natsjs/single.json
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --config) CONFIG="$2"; shift 2 ;;
        *) echo "usage: $0 [--base COMMIT] [--rounds N] [--config FILE]" >&2; exit 2 ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/first-seed"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall
BASE_TREE="$ROOT/target/bench/boot/base-$BASE"
[ -d "$BASE_TREE" ] || git worktree add -q --detach "$BASE_TREE" "$BASE"
(cd "$BASE_TREE" && cargo build --release -q -p seedfall)
# Warm-up: Go's build cache, for both builds.
for bin in "$BASE_TREE/target/release/seedfall" target/release/seedfall; do
    SEEDFALL_CACHE_DIR="$OUT/warmup" "$bin" run -c "$CONFIG" -seeds 1 >/dev/null 2>&1 || true
    rm -rf "$OUT/warmup"
done
: >"$OUT/times.tsv"
run() { # name binary cache-dir [env...]
    local name=$1 bin=$2 cache=$3
    shift 3
    local start=$EPOCHREALTIME
    env "$@" SEEDFALL_CACHE_DIR="$cache" "$bin" run -c "$CONFIG" -seeds 1 >"$OUT/$name.out" 2>&1 || true
    local end=$EPOCHREALTIME build
    build=$(grep -o 'real time: build [0-9.]*m\?s' "$OUT/$name.out" | grep -o '[0-9.]*m\?s$' || echo "?")
    printf '%s\t%s\t%s\t%s\n' "$name" "$start" "$end" "$build" >>"$OUT/times.tsv"
}
for round in $(seq "$ROUNDS"); do
    echo "== round $round" >&2
    rm -rf "$OUT"/cache-*
    run base "$BASE_TREE/target/release/seedfall" "$OUT/cache-base"
    run eager target/release/seedfall "$OUT/cache-eager" SEEDFALL_EAGER_COMPILE=1
    run lazy target/release/seedfall "$OUT/cache-lazy"
    run stored target/release/seedfall "$OUT/cache-lazy"
    grep -o 'then [0-9]* functions compiled lazily in [0-9.]*m\?s' "$OUT/lazy.out" >&2 || true
done
python3 - "$OUT/times.tsv" "$ROUNDS" "$BASE" "$CONFIG" <<'PY'
import statistics, sys
path, rounds, base, config = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def seconds(text):
    if text.endswith("ms"):
        return float(text[:-2]) / 1000
    return float(text[:-1]) if text.endswith("s") else float("nan")
times, builds = {}, {}
for line in open(path):
    name, start, end, build = line.rstrip("\n").split("\t")
    times.setdefault(name, []).append(float(end) - float(start))
    builds.setdefault(name, []).append(seconds(build))
def spread(xs):
    return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f}) s"
print(f"time to the first seed of `seedfall run -c {config} -seeds 1`, empty cache, {rounds} rounds alternating; base {base}")
print()
print("| run | wall to first seed | of which go build | wall / base | without go build, / base |")
print("|---|---|---|---|---|")
base_wall = statistics.median(times["base"])
base_rest = statistics.median([w - b for w, b in zip(times["base"], builds["base"])])
for name in ("base", "eager", "lazy", "stored"):
    wall = statistics.median(times[name])
    rest = statistics.median([w - b for w, b in zip(times[name], builds[name])])
    print(f"| {name} | {spread(times[name])} | {statistics.median(builds[name]):.2f} s | {wall / base_wall:.2f} | {rest / base_rest:.2f} |")
PY
