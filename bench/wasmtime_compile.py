#!/usr/bin/env python3
"""Cold compile time of wasm modules with wasmtime (the Python binding).

    wasmtime_compile.py [--runs N] FILE.wasm...

The wasmtime peer of `compile-time` (bench/src/bin/compile_time.rs): for each
file, N times (default 5), builds a fresh `wasmtime.Engine` from a default
`wasmtime.Config` and times `wasmtime.Module(engine, wasm_bytes)` alone
(reading the file and creating the Engine are not timed). Prints one JSON line
per file in the same shape as `compile-time`, with "engine": "wasmtime".

Cold compile: the binding's default Config has no code cache (it is only
turned on by `config.cache = True` or a cache config path, and cannot even be
"explicitly disabled"), so every Module() call runs Cranelift on every
function. Parallel compilation is wasmtime's default (on): functions are
compiled on rayon's global pool, one thread per available CPU unless
RAYON_NUM_THREADS says otherwise; "threads" reports that number.

"code_bytes" is the size of the .text section of the module's serialized ELF
image (`Module.serialize()`, done outside the timed region on the last run),
i.e. machine code plus wasmtime's trampolines, comparable with seedfall's
Artifact code size.
"""

import json
import os
import resource
import struct
import sys
import time

import wasmtime


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def elf_text_size(image):
    """Size of the .text section of an ELF64 little-endian image, or None."""
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return None
    e_shoff, = struct.unpack_from("<Q", image, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", image, 0x3A)

    def section(i):
        off = e_shoff + i * e_shentsize
        name, _type, _flags, _addr, sh_offset, sh_size = struct.unpack_from("<IIQQQQ", image, off)
        return name, sh_offset, sh_size

    _, strtab_off, _ = section(e_shstrndx)
    for i in range(e_shnum):
        name, _, size = section(i)
        end = image.index(b"\0", strtab_off + name)
        if image[strtab_off + name:end] == b".text":
            return size
    return None


def threads():
    env = os.environ.get("RAYON_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return len(os.sched_getaffinity(0))


def median(xs):
    v = sorted(xs)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main(argv):
    runs = 5
    files = []
    args = iter(argv)
    for a in args:
        if a in ("--runs", "-n"):
            runs = int(next(args))
        elif a.startswith("--runs="):
            runs = int(a.split("=", 1)[1])
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files or runs < 1:
        print(__doc__, file=sys.stderr)
        return 2

    failed = False
    for path in files:
        try:
            with open(path, "rb") as f:
                wasm = f.read()
            times, cpu = [], []
            module = None
            for _ in range(runs):
                module = None  # drop the previous module outside the timed region
                engine = wasmtime.Engine(wasmtime.Config())
                c0 = cpu_seconds()
                t0 = time.perf_counter()
                module = wasmtime.Module(engine, wasm)
                elapsed = time.perf_counter() - t0
                c1 = cpu_seconds()
                times.append(elapsed)
                cpu.append(c1 - c0)
            code = elf_text_size(module.serialize())
        except Exception as e:  # report and go on with the next file
            print(json.dumps({"engine": "wasmtime", "file": path, "error": str(e)}), flush=True)
            failed = True
            continue
        print(json.dumps({
            "engine": "wasmtime",
            "version": wasmtime_version(),
            "file": path,
            "wasm_bytes": len(wasm),
            "code_bytes": code,
            "threads": threads(),
            "runs": runs,
            "median_s": round(median(times), 6),
            "times_s": [round(t, 6) for t in times],
            "cpu_s": [round(c, 6) for c in cpu],
        }), flush=True)
    return 1 if failed else 0


def wasmtime_version():
    try:
        from importlib.metadata import version
        return version("wasmtime")
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
