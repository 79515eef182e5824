#!/usr/bin/env bash
# The Windows x86-64 port, checked on Linux under wine (docs/platforms-windows.md):
#   1. cross-builds seedfall.exe (release) and the engine's spec test for
#      x86_64-pc-windows-gnu, with mingw-w64's linker (.cargo/config.toml);
#   2. runs the spec test natively and under wine: both trap modes, and the
#      summary lines (passed, failed, skipped per mode) must be equal; and the
#      engine's traps (watchdog interrupt, stack overflow), fibers and smoke
#      tests under wine, which must pass;
#   3. a kvlog sweep, seeds 1-50: the example's Go server and client are built
#      to wasm natively once (by `seedfall run` on examples/kvlog/seedfall.json),
#      then one config naming those .wasm files (same args, supervise, duration
#      and faults) is swept natively and by seedfall.exe under wine, and the
#      two `trace_digest` fields must be equal. kvlog's config fails some seeds
#      by design (exit 1): digests are compared, not exit codes. Under wine it
#      runs twice: from an empty cache (compiling) and from the warm one;
#   4. the watchdog: examples/busyloop/spin.json (a call-free spin, watchdog
#      1 s of CPU time) from its wasm under wine, seeds 1-2: both must fail as
#      `watchdog` (the interrupt and the CPU clock, docs/platforms-windows.md).
# Prints the minutes each step took, then `windows: ok` (exit 0) or what did
# not match (exit 1); exit 2 when it cannot run (no mingw-w64, no wine).
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

# A copy of the config $1 whose nodes and workload run the wasm modules
# `seedfall run` built for them (in .seedfall/build beside it), written to $2.
wasm_config() {
    python3 - "$1" "$2" <<'EOF'
import json, os, sys
path, out = sys.argv[1], sys.argv[2]
config = json.load(open(path))
build = os.path.join(os.path.dirname(os.path.abspath(path)), ".seedfall", "build")
stem = os.path.basename(path).removesuffix(".json")
programs = config["nodes"] + [config["workload"]]
for i, node in enumerate(programs):
    del node["pkg"]
    node["wasm"] = os.path.join(build, f"{stem}.{i}-{node['name']}.wasm")
json.dump(config, open(out, "w"), indent=1)
EOF
}

# The executables a `cargo ... --no-run --message-format=json` build produced.
executables() { python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"): print(m["executable"])'; }

step "build: seedfall.exe and the spec test for $TARGET"
cargo build --release -p seedfall --target $TARGET
exe=$target_dir/$TARGET/release/seedfall.exe
spec_exe=$(cargo test -p seedfall-engine --test spec --target $TARGET --no-run --message-format=json | executables | tail -1)
engine_tests=$(cargo test -p seedfall-engine --test traps --test fibers --test smoke --target $TARGET --no-run --message-format=json | executables)
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

step "spec: native and under wine"
summary() { grep -E '^(spec:|  (Signals|Explicit):)' "$1" || true; }
cargo test -p seedfall-engine --test spec > "$work/spec-native.txt" 2>&1 || mismatch "the native spec test failed ($work/spec-native.txt)"
"$WINE" "$spec_exe" > "$work/spec-wine.txt" 2>&1 || mismatch "the spec test failed under wine ($work/spec-wine.txt)"
echo "   native: $(summary "$work/spec-native.txt" | tr '\n' ' ')"
echo "   wine:   $(summary "$work/spec-wine.txt" | tr '\n' ' ')"
[[ -n $(summary "$work/spec-wine.txt") && $(summary "$work/spec-native.txt") == $(summary "$work/spec-wine.txt") ]] ||
    mismatch "spec counts differ"
took "spec"

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

step "kvlog: seeds 1-50, native and under wine, from the same wasm"
native=$target_dir/release/seedfall
cargo build --release -p seedfall
# Builds examples/kvlog's server and client to .seedfall/build/*.wasm.
"$native" run -c examples/kvlog/seedfall.json -seeds 1-50 --json "$work/kvlog-pkg.json" > "$work/kvlog-pkg.txt" 2>&1 || true
wasm_config examples/kvlog/seedfall.json "$work/kvlog-wasm.json"
took "kvlog wasm build"
step "kvlog: native sweep"
SEEDFALL_CACHE_DIR=$work/cache-native "$native" run -c "$work/kvlog-wasm.json" -seeds 1-50 --json "$work/kvlog-native.json" > "$work/kvlog-native.txt" 2>&1 || true
took "native sweep"
step "kvlog: sweep under wine"
rm -rf "$work/cache-wine"
SEEDFALL_CACHE_DIR=$work/cache-wine "$WINE" "$exe" run -c "$work/kvlog-wasm.json" -seeds 1-50 --json "$work/kvlog-wine.json" > "$work/kvlog-wine.txt" 2>&1 || true
took "wine sweep"
step "kvlog: sweep under wine again, from the warm cache (entries loaded, not compiled)"
SEEDFALL_CACHE_DIR=$work/cache-wine "$WINE" "$exe" run -c "$work/kvlog-wasm.json" -seeds 1-50 --json "$work/kvlog-wine-warm.json" > "$work/kvlog-wine-warm.txt" 2>&1 || true
grep -o 'compile/load [^,]*' "$work/kvlog-wine-warm.txt" | sed 's/^/   /' || true
took "warm wine sweep"
field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["trace_digest"], r["failed"], r["seeds"] if "seeds" in r else "")' "$1" 2>/dev/null || echo "none"; }
echo "   pkg config, native:  digest, failed: $(field "$work/kvlog-pkg.json")"
echo "   wasm config, native: digest, failed: $(field "$work/kvlog-native.json")"
echo "   wasm config, wine:   digest, failed: $(field "$work/kvlog-wine.json")"
echo "   wasm config, wine, warm cache: digest, failed: $(field "$work/kvlog-wine-warm.json")"
[[ $(field "$work/kvlog-native.json") != none && $(field "$work/kvlog-native.json") == $(field "$work/kvlog-wine.json") ]] ||
    mismatch "kvlog trace digests differ ($work/kvlog-wine.txt)"
[[ $(field "$work/kvlog-native.json") == $(field "$work/kvlog-wine-warm.json") ]] ||
    mismatch "kvlog trace digests differ from the warm cache ($work/kvlog-wine-warm.txt)"

step "watchdog: busyloop spin.json under wine"
"$native" run -c examples/busyloop/spin.json -seeds 1-2 > "$work/spin-pkg.txt" 2>&1 || true
wasm_config examples/busyloop/spin.json "$work/spin-wasm.json"
SEEDFALL_CACHE_DIR=$work/cache-wine "$WINE" "$exe" run -c "$work/spin-wasm.json" -seeds 1-2 --json "$work/spin-wine.json" > "$work/spin-wine.txt" 2>&1 || true
classes=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(sorted(f["class"] for run in r["failures"] for f in run["failures"])))' "$work/spin-wine.json" 2>/dev/null || echo none)
echo "   failure classes under wine: $classes"
[[ $classes == "watchdog watchdog" ]] || mismatch "spin.json under wine: expected two watchdog failures ($work/spin-wine.txt)"
took "watchdog"

if [[ $failed == 0 ]]; then echo "windows: ok"; else exit 1; fi
