#!/usr/bin/env bash
# Cold compile time of real Go binaries, seedfall vs wasmtime. A benchmark, not
# a test: nothing in `cargo test` or CI runs it. See bench/README.md.
#
#   bench/compile.sh [--runs N] [--retries K]     (defaults: N=5, K=3)
#
# Builds the release `compile-time` binary, the Go programs (GOOS=wasip1
# GOARCH=wasm, local `go`) into target/bench/, installs the wasmtime Python
# package into target/bench/venv if missing, then runs both engines
# interleaved (waiting for an idle machine and re-running rounds that other
# processes disturbed, see compare.py) and prints a markdown table. Raw measurements: target/bench/results.jsonl.
set -euo pipefail

RUNS=5
RETRIES=3
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --runs=*) RUNS="${1#--runs=}"; shift ;;
        --retries) RETRIES="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--retries K]" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench"
WASMTIME_VERSION=50.0.1
mkdir -p "$OUT"

echo "== building compile-time (release)" >&2
(cd "$ROOT" && cargo build --release -p seedfall-bench >&2)
BIN="$ROOT/target/release/compile-time"

echo "== building Go programs ($(go version))" >&2
export GOOS=wasip1 GOARCH=wasm
(cd "$ROOT/bench/go" && go build -o "$OUT/hello.wasm" ./hello)
(cd "$ROOT/bench/go" && go build -o "$OUT/webapp.wasm" ./webapp)
(cd "$ROOT/bench/go" && go test -c -o "$OUT/nethttp.test.wasm" net/http)
unset GOOS GOARCH

PY="$OUT/venv/bin/python"
if ! "$PY" -c "import wasmtime" 2>/dev/null; then
    echo "== installing wasmtime==$WASMTIME_VERSION (Python) into $OUT/venv" >&2
    python3 -m venv "$OUT/venv"
    "$OUT/venv/bin/pip" install --quiet "wasmtime==$WASMTIME_VERSION"
fi

echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "== running $RUNS interleaved rounds per program" >&2
"$PY" "$ROOT/bench/compare.py" --seedfall "$BIN" --python "$PY" --runs "$RUNS" --retries "$RETRIES" \
    --out "$OUT/results.jsonl" \
    hello="$OUT/hello.wasm" \
    webapp="$OUT/webapp.wasm" \
    "net/http test"="$OUT/nethttp.test.wasm"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
