#!/usr/bin/env bash
# Writes DIR/kvlog.json: examples/kvlog/seedfall.json (crashes, torn writes,
# strict directories) with its nodes naming .wasm files built here, for a
# seedfall that has no Go toolchain beside it (under qemu-user or wine).
# Usage: ci/cross/kvlog-wasm.sh SEEDFALL DIR
set -euo pipefail
seedfall=$1 dir=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$dir"
# One seed builds both modules into the example's .seedfall/build/.
"$seedfall" run -c "$root/examples/kvlog/seedfall.json" -seeds 1 >/dev/null || true
python3 - "$root/examples/kvlog" "$dir" <<'PY'
import json, shutil, sys, pathlib
example, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
config = json.loads((example / "seedfall.json").read_text())
built = example / ".seedfall" / "build"
def wasm_for(entry):
    stem = pathlib.Path(entry.pop("pkg")).name
    found = sorted(built.glob(f"seedfall.*-{stem}.wasm"))
    if len(found) != 1:
        sys.exit(f"kvlog-wasm: no single built module for {stem} in {built}: {found}")
    target = out / f"{stem}.wasm"
    shutil.copyfile(found[0], target)
    entry["wasm"] = target.name
for node in config["nodes"]:
    wasm_for(node)
wasm_for(config["workload"])
(out / "kvlog.json").write_text(json.dumps(config, indent=2) + "\n")
PY
