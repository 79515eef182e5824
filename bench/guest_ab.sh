#!/usr/bin/env bash
# Guest CPU of this checkout's code generation against another commit's, on
# bench/guest's programs (a benchmark, not a test):
#
#   bench/guest_ab.sh [--base COMMIT] [--rounds 7] [--env K=V]
#                     [--base-flags "F"] [--this-flags "F"] [PROGRAM...]
#
# --base-flags/--this-flags add `seedfall exec` flags to one side; with
# BASE_BIN=target/release/seedfall they compare two ways of compiling with the
# same build (docs/edge-coverage.md: --this-flags --edge-bitmap).
#
# Builds the base commit in a git worktree under target/bench/guest-ab/ (or
# takes BASE_BIN, a prebuilt seedfall binary), both cache-warm, then times
# `seedfall exec` of each program (default call counters, as users run) with
# the two binaries in ABBA order per round; the outputs must agree. Prints
# per program the medians with min-max and this / base, and the geometric
# mean of the ratios. Default guest env: GOGC=off (as bench/guest.sh's
# headline), so the figures compare code, not GC timing.
set -euo pipefail
BASE=HEAD
ROUNDS=7
ENVS=(GOGC=off)
BASE_FLAGS=""
THIS_FLAGS=""
PROGRAMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --env) ENVS=("$2"); shift 2 ;;
        --base-flags) BASE_FLAGS="$2"; shift 2 ;;
        --this-flags) THIS_FLAGS="$2"; shift 2 ;;
        -*) echo "usage: $0 [--base COMMIT] [--rounds N] [--env K=V] [PROGRAM...]" >&2; exit 2 ;;
        *) PROGRAMS+=("$1"); shift ;;
    esac
done
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/guest-ab"
mkdir -p "$OUT"
cd "$ROOT"
cargo build --release -q -p seedfall
if [ -z "${BASE_BIN:-}" ]; then
    BASE_TREE="$OUT/base-$(git rev-parse --short "$BASE")"
    [ -d "$BASE_TREE" ] || git worktree add -q --detach "$BASE_TREE" "$BASE"
    (cd "$BASE_TREE" && cargo build --release -q -p seedfall)
    BASE_BIN="$BASE_TREE/target/release/seedfall"
fi
if [ ${#PROGRAMS[@]} -eq 0 ]; then
    for d in "$ROOT"/bench/guest/*/; do [ "$(basename "$d")" = hello ] || PROGRAMS+=("$(basename "$d")"); done
fi
for p in "${PROGRAMS[@]}"; do
    (cd "$ROOT/bench/guest" && GOOS=wasip1 GOARCH=wasm go build -o "$OUT/$p.wasm" "./$p")
done
python3 - "$OUT" "$ROUNDS" "$BASE_BIN" "$ROOT/target/release/seedfall" "${ENVS[*]}" "$BASE_FLAGS" "$THIS_FLAGS" "${PROGRAMS[@]}" <<'PY'
import math, statistics, subprocess, sys, time
out, rounds, base, this, envs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].split()
flags = {"base": sys.argv[6].split(), "this": sys.argv[7].split()}
programs = sys.argv[8:]
env_args = [x for kv in envs for x in ("--env", kv)]
def run(binary, which, p):
    cmd = [binary, "exec", "--cache-dir", f"{out}/cache-{which}-{p}"] + flags[which] + env_args + [f"{out}/{p}.wasm"]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{which} {p} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return wall, done.stdout
times = {p: {"base": [], "this": []} for p in programs}
for p in programs:  # warm both caches; the outputs must agree
    outputs = {which: run(binary, which, p)[1] for which, binary in (("base", base), ("this", this))}
    if outputs["base"] != outputs["this"]:
        sys.exit(f"{p}: the two builds print different output")
for r in range(rounds):
    for p in programs:
        for which in (("base", "this", "this", "base") if r % 2 == 0 else ("this", "base", "base", "this")):
            times[p][which].append(run(base if which == "base" else this, which, p)[0])
print(f"seedfall exec, {rounds} rounds ABBA (two runs of each build a round), guest env {' '.join(envs)}, "
      f"base flags {flags['base'] or 'none'}, this flags {flags['this'] or 'none'}")
print()
print("| program | base s | this s | this / base |")
print("|---|---|---|---|")
ratios = []
for p in programs:
    b, t = times[p]["base"], times[p]["this"]
    ratio = statistics.median(t) / statistics.median(b)
    ratios.append(ratio)
    print(f"| {p} | {statistics.median(b):.3f} ({min(b):.3f}–{max(b):.3f}) | {statistics.median(t):.3f} ({min(t):.3f}–{max(t):.3f}) | {ratio:.3f} |")
print(f"| **geomean** | | | **{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}** |")
PY
