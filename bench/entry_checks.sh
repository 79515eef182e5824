#!/usr/bin/env bash
# Cost of the preemption entry checks of frameless functions (docs/preemption.md) on the
# guest-CPU programs of bench/guest: `seedfall exec` with the checks (default) against
# `--no-entry-checks`, alternating rounds, medians with spread, per-program ratio and geomean.
# A benchmark, not a test. See bench/README.md ("Entry checks").
#
#   bench/entry_checks.sh [--rounds N] [PROGRAM...]      (defaults: 9 rounds, all but hello)
#
# Builds the release `seedfall` and the programs (GOOS=wasip1, local `go`) into
# target/bench/entry/, warms the cache for both configurations (one untimed run each, whose
# outputs must agree), then runs bench/entry_checks.py. Raw measurements:
# target/bench/entry/results.jsonl, table: target/bench/entry/table.md.
set -euo pipefail

ROUNDS=9
PROGRAMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        -*) echo "usage: $0 [--rounds N] [PROGRAM...]" >&2; exit 2 ;;
        *) PROGRAMS+=("$1"); shift ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/entry"
mkdir -p "$OUT"
if [ ${#PROGRAMS[@]} -eq 0 ]; then
    # hello measures start-up only.
    for d in "$ROOT"/bench/guest/*/; do
        p="$(basename "$d")"
        [ "$p" = hello ] || PROGRAMS+=("$p")
    done
fi

echo "== building seedfall (release)" >&2
(cd "$ROOT" && cargo build --release -p seedfall >&2)
# A private copy: other builds may replace target/release while this runs.
cp "$ROOT/target/release/seedfall" "$OUT/seedfall"

echo "== building Go programs ($(go version))" >&2
for p in "${PROGRAMS[@]}"; do
    (cd "$ROOT/bench/guest" && GOOS=wasip1 GOARCH=wasm go build -o "$OUT/$p.wasm" "./$p")
done

echo "== $ROUNDS alternating rounds: ${PROGRAMS[*]}" >&2
python3 "$ROOT/bench/entry_checks.py" "$OUT/seedfall" "$OUT" "$ROUNDS" "${PROGRAMS[@]}"
