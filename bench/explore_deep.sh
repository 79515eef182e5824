#!/usr/bin/env bash
# Deep bugs: `seedfall explore` against flat sweeps, with and without swarm
# (a benchmark, not a test; see bench/README.md and bench/explore_deep.py).
#
#   bench/explore_deep.sh [--starts 5] [--explore-seeds 20] [--budget 2000]
#                         [--flat-max 8000] [--bugs rosedb,kvlog-torn-tail,...] [--edges]
#   bench/explore_deep.sh --clean 3000 [--edges]   (the clean configs' plateaus)
#
# Builds the release binary, warms the compiled-code cache, then runs
# bench/explore_deep.py with the arguments given. About 30 minutes on the
# 2-core machine at the defaults (most of it the flat sweeps). Raw output in
# target/bench/explore_deep/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/explore_deep"
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q -p seedfall)
export SEEDFALL_CACHE_DIR="${SEEDFALL_CACHE_DIR:-$OUT/cache}"
for config in examples/wals/rosedb.deep.json examples/wals/tidwall.pr22.deep.json examples/kvlog/torn-tail.deep.json \
    examples/kvlog/fsync-retry.deep.json; do
    "$ROOT/target/release/seedfall" run -c "$ROOT/$config" -seeds 1 >/dev/null || true
done
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 "$ROOT/bench/explore_deep.py" "$@" 2> >(tee "$OUT/progress.txt" >&2) | tee "$OUT/figures.md"
