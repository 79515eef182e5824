"""Write a copy of a seedfall config whose nodes and workload name the .wasm
modules `seedfall run` built for it (in .seedfall/build beside it) instead of
Go packages, with those modules copied beside the copy: for a seedfall with
no Go toolchain beside it (under qemu-user or wine). Run the config once
natively first so the modules exist.

Usage: wasm_config.py CONFIG OUT_DIR   (writes OUT_DIR/<config's name>)"""

import json
import pathlib
import shutil
import sys


def main(config_path: str, out_dir: str) -> int:
    config_file, out = pathlib.Path(config_path), pathlib.Path(out_dir)
    config = json.loads(config_file.read_text())
    built = config_file.parent / ".seedfall" / "build"
    stem = config_file.stem
    out.mkdir(parents=True, exist_ok=True)
    for program in config["nodes"] + [config["workload"]]:
        package = pathlib.Path(program.pop("pkg")).name
        found = sorted(built.glob(f"{stem}.[0-9]*-{package}.wasm"))
        if len(found) != 1:
            print(f"wasm_config: not one module for {package} in {built}: {found}", file=sys.stderr)
            return 1
        shutil.copyfile(found[0], out / f"{package}.wasm")
        program["wasm"] = f"{package}.wasm"
    (out / config_file.name).write_text(json.dumps(config, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
