#!/usr/bin/env bash
# seedfall on aarch64 Linux, for real, under Debian's qemu-user: cross-builds
# the engine's spec test and the seedfall binary for aarch64-unknown-linux-gnu
# (linker and runner in .cargo/config.toml), runs the spec suite in both trap
# modes (only with SEEDFALL_CROSS=full), and a kvlog sweep whose trace digest
# must equal the x86-64 one, then the floats guest and the intrinsics' differential guests
# (the same output and trace hash as on x86-64). Prints the minutes each step took. Guest speed under emulation
# is not a performance figure (docs/platforms.md).
# Usage: ci/cross/aarch64.sh [SEEDS]   (default 1-20; SEEDFALL_CROSS=full: 1-50
# and the spec suite, which CI's quick form leaves out: docs/testing.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
full=${SEEDFALL_CROSS:-quick}
if [[ $full == full ]]; then seeds=${1:-1-50}; else seeds=${1:-1-20}; fi
target=aarch64-unknown-linux-gnu

if ! command -v qemu-aarch64-static >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
    (apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross) >/dev/null
fi
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

step() { echo "cross aarch64: $1: $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s"; started=$SECONDS; }
started=$SECONDS

if [[ $full == full ]]; then
    cargo test -q -p seedfall-engine --test spec --target "$target"
    step "spec suite under qemu"
fi

cargo build -q -p seedfall --target "$target"
# The native binary as `cargo test --workspace` builds it (a no-op after CI's
# test step; `cargo build -p seedfall` would compile Cranelift again with other
# features: docs/test-speed.md).
cargo test -q --workspace --no-run
step "build seedfall"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/debug/seedfall run -c examples/kvlog/seedfall.json -seeds 1 >/dev/null || true # builds the modules
python3 ci/cross/wasm_config.py examples/kvlog/seedfall.json "$work"
mv "$work/seedfall.json" "$work/kvlog.json"
export SEEDFALL_CACHE_DIR="$work/cache-x86_64"
(cd "$work" && "$OLDPWD/target/debug/seedfall" run -c kvlog.json -seeds "$seeds" --json x86_64.json >/dev/null) || true
step "kvlog $seeds on x86-64"
export SEEDFALL_CACHE_DIR="$work/cache-aarch64"
(cd "$work" && qemu-aarch64-static -L /usr/aarch64-linux-gnu "$OLDPWD/target/$target/debug/seedfall" \
    run -c kvlog.json -seeds "$seeds" --json aarch64.json >/dev/null) || true
step "kvlog $seeds on aarch64 under qemu"

python3 ci/cross/same_digest.py "$work/x86_64.json" "$work/aarch64.json"

# A trace log saved on aarch64 replays on x86-64 with no difference, event
# by event (seed 1 fails: a crash loses an acknowledged write).
(cd "$work" && qemu-aarch64-static -L /usr/aarch64-linux-gnu "$OLDPWD/target/$target/debug/seedfall" \
    replay -c kvlog.json -seed 1 --save-trace seed-1.aarch64.log >/dev/null) || true
export SEEDFALL_CACHE_DIR="$work/cache-x86_64"
(cd "$work" && "$OLDPWD/target/debug/seedfall" replay -c kvlog.json -seed 1 --against seed-1.aarch64.log >replay.out 2>&1) || true
grep "^same .* events as" "$work/replay.out" || { cat "$work/replay.out"; exit 1; }
step "replay --against the aarch64 log"

# A guest whose float bits differ between the two CPUs unless the engine
# pins them: the same output and trace hash on both.
(cd cli/tests/go && GOOS=wasip1 GOARCH=wasm go build -o "$work/floats.wasm" ./floats)
floats=(exec --trace-hash "$work/floats.wasm" 0 1 -1 inf)
target/debug/seedfall "${floats[@]}" >"$work/floats.x86_64" 2>&1
qemu-aarch64-static -L /usr/aarch64-linux-gnu "target/$target/debug/seedfall" "${floats[@]}" >"$work/floats.aarch64" 2>&1
diff "$work/floats.x86_64" "$work/floats.aarch64"
echo "cross: floats: the same bits and $(grep 'trace hash' "$work/floats.aarch64")"
step "floats on both"

# The intrinsics (docs/intrinsics.md) compute the same on aarch64: each
# differential guest gives the same output and trace hash natively and under
# qemu, with intrinsics and without. Which functions get one depends only on
# the wasm (cli/tests/intrinsics.rs checks that these modules get theirs).
for program in sha256diff bigdiff; do
    (cd cli/tests/go && GOOS=wasip1 GOARCH=wasm go build -o "$work/$program.wasm" "./$program")
    flags=(exec --preempt random --seed 3 --trace-hash)
    target/debug/seedfall "${flags[@]}" "$work/$program.wasm" 300 >"$work/$program.x86_64" 2>&1
    qemu-aarch64-static -L /usr/aarch64-linux-gnu "target/$target/debug/seedfall" \
        "${flags[@]}" "$work/$program.wasm" 300 >"$work/$program.aarch64" 2>&1
    qemu-aarch64-static -L /usr/aarch64-linux-gnu "target/$target/debug/seedfall" \
        "${flags[@]}" --no-intrinsics "$work/$program.wasm" 300 >"$work/$program.aarch64-wasm" 2>&1
    diff "$work/$program.x86_64" "$work/$program.aarch64"
    diff "$work/$program.aarch64" "$work/$program.aarch64-wasm"
    echo "cross: $program: the same output with and without intrinsics and $(grep 'trace hash' "$work/$program.aarch64")"
done
step "intrinsics on both"
