#!/usr/bin/env bash
# Type-checks the seedfall binary for both macOS targets. Nothing runs: there
# is no macOS machine or SDK here, which is also why nothing in the tree may
# need a C compiler for macOS (docs/platforms.md). The release workflow runs
# the spec suite on real macOS runners.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
for target in aarch64-apple-darwin x86_64-apple-darwin; do
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
    cargo check -q -p seedfall --target "$target"
done
echo "cross macos: seedfall type-checks for aarch64-apple-darwin and x86_64-apple-darwin: $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s"
