#!/usr/bin/env bash
# Warm start: seedfall's compiled-code cache hit, phase by phase (key hash,
# map, verify, decode, load = mapping + linking), and a cold compile, against
# wasmtime's deserialize of a precompiled module and wazero's load from its
# compilation cache, for Go hello and `go test -c net/http` (GOOS=wasip1).
# A benchmark, not a test. See bench/README.md.
#
#   bench/warm.sh [--rounds N] [--cold-rounds K]     (defaults: N=10, K=3)
#
# Builds the release `warm-start` binary (bench/src/bin/warm_start.rs), the Go
# modules into target/bench/warm/, wazero_load (bench/wazero_load, wazero
# v1.12.0), installs the wasmtime Python package into target/bench/venv if
# missing, precompiles both modules for wasmtime (not timed), then runs
# bench/warm.py. Raw measurements: target/bench/warm/results.jsonl.
set -euo pipefail

ROUNDS=10
COLD=3
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --cold-rounds) COLD="$2"; shift 2 ;;
        *) echo "usage: $0 [--rounds N] [--cold-rounds K]" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/warm"
WASMTIME_VERSION=50.0.1
mkdir -p "$OUT"

echo "== building warm-start (release)" >&2
(cd "$ROOT" && cargo build --release -p seedfall-bench --bin warm-start >&2)
# A private copy: other builds may replace target/release while this runs.
cp "$ROOT/target/release/warm-start" "$OUT/warm-start"

echo "== building Go modules ($(go version))" >&2
(cd "$ROOT/bench/go" && GOOS=wasip1 GOARCH=wasm go build -o "$OUT/hello.wasm" ./hello)
(cd "$ROOT/bench/go" && GOOS=wasip1 GOARCH=wasm go test -c -o "$OUT/nethttp.wasm" net/http)
(cd "$ROOT/bench/wazero_load" && go build -o "$OUT/wazero_load" .)

PY="$ROOT/target/bench/venv/bin/python"
if ! "$PY" -c "import wasmtime" 2>/dev/null; then
    echo "== installing wasmtime==$WASMTIME_VERSION (Python) into target/bench/venv" >&2
    python3 -m venv "$ROOT/target/bench/venv"
    "$ROOT/target/bench/venv/bin/pip" install --quiet "wasmtime==$WASMTIME_VERSION"
fi
echo "== precompiling for wasmtime" >&2
for m in hello nethttp; do
    if [ ! "$OUT/$m.cwasm" -nt "$OUT/$m.wasm" ]; then
        "$PY" "$ROOT/bench/wasmtime_run.py" precompile "$OUT/$m.wasm" "$OUT/$m.cwasm"
    fi
done

echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$PY" "$ROOT/bench/warm.py" --dir "$OUT" --warm-start "$OUT/warm-start" --python "$PY" \
    --wazero-load "$OUT/wazero_load" --rounds "$ROUNDS" --cold-rounds "$COLD" hello nethttp | tee "$OUT/table.md"
