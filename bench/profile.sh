#!/usr/bin/env bash
# Profile hints: per-Go-function self time of seedfall (call counters and
# uninstrumented) against wasmtime, from `perf record -e cpu-clock` (software
# clock: this VM has no hardware counters). Not a timing; see bench/README.md.
#
#   bench/profile.sh [--env K=V] [PROGRAM...]     (default: all bench/guest programs)
#
# Needs `perf` and a finished bench/guest.sh (it reuses target/bench/guest:
# the modules, the wasmtime-precompiled files, the private seedfall binary and
# its warm caches). Builds the release `sfc-symbols` binary.
set -euo pipefail
ENV_ARGS=()
PROGRAMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --env) ENV_ARGS=(--env "$2"); shift 2 ;;
        -*) echo "usage: $0 [--env K=V] [PROGRAM...]" >&2; exit 2 ;;
        *) PROGRAMS+=("$1"); shift ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/guest"
[ -x "$OUT/seedfall" ] || { echo "run bench/guest.sh first" >&2; exit 1; }
if [ ${#PROGRAMS[@]} -eq 0 ]; then
    for d in "$ROOT"/bench/guest/*/; do [ "$(basename "$d")" = hello ] || PROGRAMS+=("$(basename "$d")"); done
fi
(cd "$ROOT" && cargo build --release -p seedfall-bench --bin sfc-symbols >&2)
cp "$ROOT/target/release/sfc-symbols" "$OUT/sfc-symbols"
"$ROOT/target/bench/venv/bin/python" "$ROOT/bench/profile.py" --dir "$OUT" --seedfall "$OUT/seedfall" \
    --symbols "$OUT/sfc-symbols" --python "$ROOT/target/bench/venv/bin/python" "${ENV_ARGS[@]}" "${PROGRAMS[@]}"
