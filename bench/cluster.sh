#!/usr/bin/env bash
# Real Go distributed systems (a benchmark, not a test; see bench/README.md):
# bench/cluster/raft3 (3 hashicorp/raft nodes in one process) and
# bench/cluster/nats1 (one JetStream node with a file stream) under native
# Go, seedfall exec and wazero v1.12.0 (the reference's engine), then
# seedfall sweeps of examples/raftkv and examples/natsjs (seeds/s, real time
# per virtual second).
#
#   bench/cluster.sh [--rounds N] [--programs raft3,nats1] [--n-raft3 N] [--n-nats1 N] [--seeds LIST|none]
#                    (defaults 5, both, 30000, 2000, 1-10)
#
# Builds the release seedfall, each program natively and for wasip1, and the
# wazero CLI once (as bench/guest.sh does), warms both caches, then runs
# bench/cluster.py. Output: target/bench/cluster/table.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/cluster"
WAZERO_VERSION=v1.12.0
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q -p seedfall)
cp "$ROOT/target/release/seedfall" "$OUT/seedfall"
for prog in raft3 nats1; do
    (cd "$ROOT/bench/cluster" && go build -o "$OUT/$prog.native" "./$prog" \
        && GOOS=wasip1 GOARCH=wasm go build -o "$OUT/$prog.wasm" "./$prog")
done
# JetStream's store for the native and wazero runs: tmpfs, so neither pays
# for a real fsync (seedfall's disk is in memory).
SHM="$(mktemp -d /dev/shm/seedfall-bench.XXXXXX)"
trap 'rm -rf "$SHM"' EXIT
mkdir -p "$SHM/wazero"
WAZERO="$ROOT/target/bench/wazero-$WAZERO_VERSION"
if [ ! -x "$WAZERO" ]; then
    tmp="$(mktemp -d)"
    printf 'module wazerobuild\n\ngo 1.26\n\nrequire github.com/tetratelabs/wazero %s\n' "$WAZERO_VERSION" >"$tmp/go.mod"
    (cd "$tmp" && GOFLAGS=-mod=mod go build -o "$WAZERO" github.com/tetratelabs/wazero/cmd/wazero)
    rm -rf "$tmp"
fi
"$OUT/seedfall" exec --cache-dir "$OUT/sf-cache" "$OUT/raft3.wasm" -n 1 >/dev/null
"$WAZERO" run -cachedir "$OUT/wz-cache" "$OUT/raft3.wasm" -n 1 >/dev/null
"$OUT/seedfall" exec --cache-dir "$OUT/sf-cache" "$OUT/nats1.wasm" -n 1 >/dev/null
"$WAZERO" run -cachedir "$OUT/wz-cache" -mount "$SHM/wazero:/data" "$OUT/nats1.wasm" -n 1 -data /data/store >/dev/null
echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 "$ROOT/bench/cluster.py" --dir "$OUT" --shm "$SHM" --seedfall "$OUT/seedfall" --wazero "$WAZERO" "$@" | tee "$OUT/table.md"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
