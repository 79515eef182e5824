#!/usr/bin/env bash
# The Windows x86-64 port, checked on Linux under wine (docs/platforms-windows.md):
#   1. cross-builds seedfall.exe and the engine's spec, traps, fibers and smoke
#      tests for x86_64-pc-windows-gnu (mingw-w64's linker, .cargo/config.toml)
#      in one cargo invocation, so the two share one build of Cranelift;
#   2. runs the spec test natively and under wine (only with
#      SEEDFALL_CROSS=full: CI's quick form leaves it out, docs/testing.md):
#      both trap modes, and the summary lines (passed, failed, skipped per
#      mode) must be equal; the other engine tests must pass under wine;
#   3. a kvlog sweep, seeds 1-20 (1-50 in full), from .wasm modules built natively
#      (ci/cross/wasm_config.py): natively, under wine from an empty cache and
#      under wine again from the warm one; the three must agree
#      (ci/cross/same_digest.py). kvlog's config fails some seeds by design;
#   4. the watchdog: examples/busyloop/spin.json (a call-free spin) under wine,
#      seeds 1-2: both must fail as `watchdog`;
#   5. the floats guest (cli/tests/go/floats): the same output and trace hash.
# Prints the minutes each step took, then `windows: ok` (exit 0) or what did
# not match (exit 1); exit 2 when it cannot run (no mingw-w64, no wine, and
# apt-get could not install them).
# Expects target/debug/seedfall (native) to be built, as `cargo test` leaves it.
#
# Wine 8 (Debian 12's wine64) lacks bcryptprimitives.dll, whose ProcessPrng
# every Rust 1.78+ program imports; the script builds a stand-in
# (ci/cross/bcryptprimitives.c) into its own wine prefix when the prefix has
# none. Real Windows never needs it.
#
# Environment: CARGO_TARGET_DIR (default target), WINE (default wine64 on the
# PATH, else /usr/lib/wine/wine64), CROSS_WORK (default
# $CARGO_TARGET_DIR/cross-windows: the wine prefix, caches and JSON reports).
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
TARGET=x86_64-pc-windows-gnu
target_dir=${CARGO_TARGET_DIR:-$root/target}
work=${CROSS_WORK:-$target_dir/cross-windows}
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! { command -v wine64 || [[ -x /usr/lib/wine/wine64 ]]; } >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64 wine64) >/dev/null
fi
rustup target list --installed | grep -qx "$TARGET" || rustup target add "$TARGET"
WINE=${WINE:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "windows: no x86_64-w64-mingw32-gcc (apt install mingw-w64)" >&2; exit 2; }
[[ -x $WINE ]] || { echo "windows: no wine at $WINE (apt install wine64, or set WINE)" >&2; exit 2; }
mkdir -p "$work"
export WINEPREFIX=$work/wineprefix WINEARCH=win64 WINEDEBUG=-all

step_start=0
step() { step_start=$(date +%s); echo "== $*"; }
took() { awk -v s="$step_start" -v e="$(date +%s)" -v what="$1" 'BEGIN { printf "   %s: %.1f min\n", what, (e - s) / 60 }'; }
failed=0
mismatch() { echo "windows: MISMATCH: $*" >&2; failed=1; }

# The executables a `cargo ... --no-run --message-format=json` build produced.
executables() { python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"): print(m["executable"])'; }

full=${SEEDFALL_CROSS:-quick}
if [[ $full == full ]]; then seeds=1-50; else seeds=1-20; fi

step "build: seedfall.exe and the engine tests for $TARGET"
# One cargo invocation for the binary and the tests: two would resolve
# features twice (the engine's dev-dependencies turn on features of crates
# Cranelift uses) and compile Cranelift twice (docs/test-speed.md).
tests=(--test traps --test fibers --test smoke)
[[ $full == full ]] && tests+=(--test spec)
built=$(cargo build -p seedfall -p seedfall-engine --bin seedfall "${tests[@]}" --target $TARGET --message-format=json | executables)
exe=$target_dir/$TARGET/debug/seedfall.exe
[[ -x $exe ]] || { echo "windows: the build left no $exe" >&2; exit 2; }
spec_exe=$(grep '/spec-[^/]*\.exe$' <<<"$built" || true)
engine_tests=$(grep -E '/(traps|fibers|smoke)-[^/]*\.exe$' <<<"$built")
took "cross build"

step "wine prefix: $WINEPREFIX"
"$WINE" wineboot --init >/dev/null 2>&1 || true
"$(dirname "$WINE")/wineserver" -w 2>/dev/null || wineserver -w 2>/dev/null || true
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
if [[ ! -e $dll ]]; then
    echo "   this wine has no bcryptprimitives.dll: installing the stand-in"
    x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" ci/cross/bcryptprimitives.c ci/cross/bcryptprimitives.def -ladvapi32
fi
took "wine prefix"

if [[ $full == full ]]; then
    step "spec: native and under wine"
    summary() { grep -E '^(spec:|  (Signals|Explicit):)' "$1" || true; }
    cargo test -p seedfall-engine --test spec > "$work/spec-native.txt" 2>&1 || mismatch "the native spec test failed ($work/spec-native.txt)"
    "$WINE" "$spec_exe" > "$work/spec-wine.txt" 2>&1 || mismatch "the spec test failed under wine ($work/spec-wine.txt)"
    echo "   native: $(summary "$work/spec-native.txt" | tr '\n' ' ')"
    echo "   wine:   $(summary "$work/spec-wine.txt" | tr '\n' ' ')"
    [[ -n $(summary "$work/spec-wine.txt") && $(summary "$work/spec-native.txt") == $(summary "$work/spec-wine.txt") ]] ||
        mismatch "spec counts differ"
    took "spec"
fi

step "engine traps, fibers and smoke tests under wine"
for test in $engine_tests; do
    name=$(basename "$test" .exe)
    if "$WINE" "$test" > "$work/$name.txt" 2>&1; then
        echo "   ${name%-*}: $(grep 'test result' "$work/$name.txt")"
    else
        mismatch "${name%-*} failed under wine ($work/$name.txt)"
    fi
done
took "engine tests"

step "kvlog: seeds $seeds, native and under wine, from the same wasm"
native=$target_dir/debug/seedfall
"$native" run -c examples/kvlog/seedfall.json -seeds 1 > /dev/null 2>&1 || true # builds the modules
python3 ci/cross/wasm_config.py examples/kvlog/seedfall.json "$work/kvlog"
sweep() { # sweep NAME SEEDFALL...: kvlog $seeds in $work/kvlog, its JSON as NAME.json
    local name=$1; shift
    (cd "$work/kvlog" && "$@" run -c seedfall.json -seeds "$seeds" --json "$name.json" > "$name.txt" 2>&1) || true
}
SEEDFALL_CACHE_DIR=$work/cache-native sweep native "$native"
rm -rf "$work/cache-wine"
SEEDFALL_CACHE_DIR=$work/cache-wine sweep wine "$WINE" "$exe"
took "native and wine sweeps"
SEEDFALL_CACHE_DIR=$work/cache-wine sweep wine-warm "$WINE" "$exe"
grep -o 'compile/load [^,]*' "$work/kvlog/wine-warm.txt" | sed 's/^/   warm: /' || true
for run in wine wine-warm; do
    python3 ci/cross/same_digest.py "$work/kvlog/native.json" "$work/kvlog/$run.json" ||
        mismatch "kvlog under $run differs from native ($work/kvlog/$run.txt)"
done
took "warm wine sweep"

step "watchdog: busyloop spin.json under wine"
"$native" run -c examples/busyloop/spin.json -seeds 1 > /dev/null 2>&1 || true # builds the module
python3 ci/cross/wasm_config.py examples/busyloop/spin.json "$work/spin"
(cd "$work/spin" && SEEDFALL_CACHE_DIR=$work/cache-wine "$WINE" "$exe" run -c spin.json -seeds 1-2 --json wine.json > wine.txt 2>&1) || true
classes=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(sorted(f["class"] for run in r["failures"] for f in run["failures"])))' "$work/spin/wine.json" 2>/dev/null || echo none)
echo "   failure classes under wine: $classes"
[[ $classes == "watchdog watchdog" ]] || mismatch "spin.json under wine: expected two watchdog failures ($work/spin/wine.txt)"
took "watchdog"

step "floats: pinned float bits, native and under wine"
mkdir -p "$work/floats"
(cd cli/tests/go && GOOS=wasip1 GOARCH=wasm go build -trimpath -o "$work/floats/floats.wasm" ./floats)
# PWD is pinned: exec gives the guest the host's working directory, which wine spells Z:\...
floats=(exec --env PWD=/ --trace-hash floats.wasm 0 1 -1 inf)
(cd "$work/floats" && SEEDFALL_CACHE_DIR=$work/cache-native "$native" "${floats[@]}" > native.txt 2>&1) || true
(cd "$work/floats" && SEEDFALL_CACHE_DIR=$work/cache-wine "$WINE" "$exe" "${floats[@]}" 2>&1 | tr -d '\r' > wine.txt) || true
if diff "$work/floats/native.txt" "$work/floats/wine.txt" > /dev/null; then
    echo "   the same bits and $(grep 'trace hash' "$work/floats/wine.txt")"
else
    mismatch "floats under wine differ from native ($work/floats)"
fi
took "floats"

if [[ $failed == 0 ]]; then echo "windows: ok"; else exit 1; fi
