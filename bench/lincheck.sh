#!/usr/bin/env bash
# Linearizability checking: seedfall-check's `check` against Porcupine v1.3.1's CheckOperations, on every
# history of Porcupine's own test data (102 etcd cas-register logs, 6 kv logs), same semantics on both
# sides. A benchmark, not a test. See bench/README.md.
#
#   bench/lincheck.sh [--runs N]      (default N=5)
#
# Builds the release example check/examples/lincheck_bench.rs and bench/porcupine (Go, its own go.mod),
# then runs N interleaved rounds: seedfall, Porcupine with GOMAXPROCS=1, Porcupine with every core. Each
# round is one fresh process per checker timing every file once. Raw measurements go to
# target/bench/lincheck/*.jsonl; bench/lincheck.py prints the tables.
set -euo pipefail

RUNS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        *) echo "usage: bench/lincheck.sh [--runs N]" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."
OUT=target/bench/lincheck
mkdir -p "$OUT"
rm -f "$OUT"/seedfall.jsonl "$OUT"/porcupine-1.jsonl "$OUT"/porcupine.jsonl

cargo build --release -q -p seedfall-check --example lincheck_bench
(cd bench/porcupine && go build -o "../../$OUT/porcupine" .)
DATA="$(go env GOMODCACHE)/github.com/anishathalye/porcupine@v1.3.1/test_data"
[ -d "$DATA" ] || (cd bench/porcupine && go mod download github.com/anishathalye/porcupine)

echo "cores: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$RUNS"); do
    target/release/examples/lincheck_bench 1 >>"$OUT/seedfall.jsonl"
    GOMAXPROCS=1 "$OUT/porcupine" "$DATA" 1 >>"$OUT/porcupine-1.jsonl"
    "$OUT/porcupine" "$DATA" 1 >>"$OUT/porcupine.jsonl"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/lincheck.py "$OUT"
