#!/usr/bin/env bash
# Guest CPU: the stdlib-only Go programs in bench/guest under native Go
# (GOMAXPROCS=1), seedfall exec (call counters, without intrinsics, loop counters, uninstrumented,
# SP or nothing in the pinned register instead of the counter),
# wasmtime (Python binding) and wazero (v1.12.0 CLI), interleaved, medians,
# ratios, geomeans. A benchmark, not a test. See bench/README.md.
#
#   bench/guest.sh [--rounds N] [--quiet-wait S] [--env K=V]... [PROGRAM...]
#       (defaults: 5 rounds, quiet-wait 20 s, all programs; every guest runs with
#        GOGC=100 GODEBUG=gctrace=1 and the GC cycles are compared; --env overrides)
#
# Builds the release `seedfall`, the programs (native and GOOS=wasip1
# GOARCH=wasm, local `go`) into target/bench/guest/, installs the wasmtime
# Python package into target/bench/venv if missing, builds the wazero CLI once
# (from a temporary module requiring github.com/tetratelabs/wazero v1.12.0),
# precompiles every module for wasmtime, and warms the seedfall and wazero
# caches (one untimed run each), so only runs are timed, never compiles.
# Then runs bench/guest.py. Raw measurements: target/bench/guest/results.jsonl,
# tables: target/bench/guest/table.md (both overwritten by the next run).
set -euo pipefail

ROUNDS=5
QUIET=20
GUEST_ENV=()
PROGRAMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --quiet-wait) QUIET="$2"; shift 2 ;;
        --env) GUEST_ENV+=(--env "$2"); shift 2 ;;
        -*) echo "usage: $0 [--rounds N] [--quiet-wait S] [--env K=V]... [PROGRAM...]" >&2; exit 2 ;;
        *) PROGRAMS+=("$1"); shift ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/guest"
WASMTIME_VERSION=50.0.1
WAZERO_VERSION=v1.12.0
mkdir -p "$OUT"
if [ ${#PROGRAMS[@]} -eq 0 ]; then
    for d in "$ROOT"/bench/guest/*/; do PROGRAMS+=("$(basename "$d")"); done
fi

echo "== building seedfall (release)" >&2
(cd "$ROOT" && cargo build --release -p seedfall >&2)
# A private copy: other builds may replace target/release while this runs.
cp "$ROOT/target/release/seedfall" "$OUT/seedfall"
SEEDFALL="$OUT/seedfall"

echo "== building Go programs ($(go version))" >&2
for p in "${PROGRAMS[@]}"; do
    (cd "$ROOT/bench/guest" && go build -o "$OUT/$p.native" "./$p" \
        && GOOS=wasip1 GOARCH=wasm go build -o "$OUT/$p.wasm" "./$p")
done

PY="$ROOT/target/bench/venv/bin/python"
if ! "$PY" -c "import wasmtime" 2>/dev/null; then
    echo "== installing wasmtime==$WASMTIME_VERSION (Python) into target/bench/venv" >&2
    python3 -m venv "$ROOT/target/bench/venv"
    "$ROOT/target/bench/venv/bin/pip" install --quiet "wasmtime==$WASMTIME_VERSION"
fi

WAZERO="$ROOT/target/bench/wazero-$WAZERO_VERSION"
if [ ! -x "$WAZERO" ]; then
    echo "== building wazero $WAZERO_VERSION" >&2
    tmp="$(mktemp -d)"
    cat >"$tmp/go.mod" <<MOD
module wazerobuild

go 1.26

require github.com/tetratelabs/wazero $WAZERO_VERSION
MOD
    (cd "$tmp" && GOFLAGS=-mod=mod go build -o "$WAZERO" github.com/tetratelabs/wazero/cmd/wazero)
    rm -rf "$tmp"
fi

echo "== precompiling for wasmtime, warming the seedfall and wazero caches" >&2
for p in "${PROGRAMS[@]}"; do
    "$PY" "$ROOT/bench/wasmtime_run.py" precompile "$OUT/$p.wasm" "$OUT/$p.cwasm"
    for flags in "" "--no-intrinsics" "--preempt none,loops=true" "--no-preempt" "--pinned-global first" "--pinned-global last"; do
        # shellcheck disable=SC2086
        "$SEEDFALL" exec --cache-dir "$OUT/seedfall-cache/$p" $flags "$OUT/$p.wasm" >/dev/null
    done
    "$WAZERO" run -cachedir "$OUT/wazero-cache" "$OUT/$p.wasm" >/dev/null
done

echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "== $ROUNDS interleaved rounds" >&2
"$PY" "$ROOT/bench/guest.py" --dir "$OUT" --seedfall "$SEEDFALL" --python "$PY" --wazero "$WAZERO" \
    --rounds "$ROUNDS" --quiet-wait "$QUIET" "${GUEST_ENV[@]}" "${PROGRAMS[@]}" | tee "$OUT/table.md"
