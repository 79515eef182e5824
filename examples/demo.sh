#!/usr/bin/env bash
# The README's main command: find a real durability bug. Builds seedfall, then
# sweeps 500 seeds of examples/kvlog (a log-structured key-value store that
# acknowledges writes before they are fsynced) under crashes with torn writes
# (the first 10 FAIL blocks, then the one finding they share),
# replays the lowest failing seed with its full trace, and sweeps the fixed
# store, which passes. Go builds the services for wasip1 with the stock
# toolchain; the first run compiles them to native code, later runs load
# them from .seedfall/cache.
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p seedfall || exit 2
# Where cargo put it: CARGO_TARGET_DIR, a .cargo/config's build.target-dir, or ./target.
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])') || exit 2
seedfall=$target/release/seedfall

echo "== seedfall run -c examples/kvlog/seedfall.json -seeds 1-500   (the buggy store)"
"$seedfall" run -c examples/kvlog/seedfall.json -seeds 1-500 --json "$target/demo-sweep.json"
status=${PIPESTATUS[0]}
if [ "$status" != 1 ]; then
  echo "demo: expected the sweep to find the bug (exit 1), got exit $status" >&2
  exit 2
fi
seed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lowest_failing_seed"])' "$target/demo-sweep.json")

echo
echo "== seedfall replay -c examples/kvlog/seedfall.json -seed $seed   (the last lines of the full trace)"
"$seedfall" replay -c examples/kvlog/seedfall.json -seed "$seed" | grep -v 'client#1 (stderr)' | tail -n 14

echo
echo "== seedfall run -c examples/kvlog/seedfall.fixed.json -seeds 1-100 -check   (the fixed store, every seed twice)"
"$seedfall" run -c examples/kvlog/seedfall.fixed.json -seeds 1-100 -check | tail -n 6
