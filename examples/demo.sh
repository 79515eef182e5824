#!/usr/bin/env bash
# The README's main command: build the example Go program for wasip1 with the
# stock toolchain and run it in seedfall's deterministic world, twice with the
# same seed (identical output) and once with another seed.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/examples
(cd examples && GOOS=wasip1 GOARCH=wasm go build -o ../target/examples/tour.wasm ./tour)
cargo build --release -q -p seedfall
seedfall=target/release/seedfall
for seed in 7 7 8; do
  echo "== seedfall exec --seed $seed tour.wasm"
  start=$(date +%s%N)
  "$seedfall" exec --seed "$seed" target/examples/tour.wasm
  echo "   ($(( ($(date +%s%N) - start) / 1000000 )) ms of real time, including compiling or loading from the cache)"
done
