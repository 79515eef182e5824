#!/usr/bin/env python3
"""Structure counts the code review tracks (issue 57; ci/counts.sh runs this).

Prints one `name value` line per count, then the import circles it found.
With --check, exits 1 when a count is over its limit (LIMITS below).

What it counts, in non-test library code (no `tests/`, no `*_tests.rs`, no
`#[cfg(test)]` items, no `main.rs` or `*_cmd.rs`-only binaries' `main.rs`):
- fields of the world's core structs (World, RunResult, Slot, Recorder, RunSpec);
- `Result<_, String>` in host/src and cli/src;
- positional host-call reads `v[N]` in host/src;
- import circles between files: a file's `crate::…` and `super::…` paths
  name the file that defines that module; a circle is a strongly connected
  set of two or more files.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "--root" in sys.argv:  # another tree (the test's made-up one)
    ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
CRATES = ["engine", "instrument", "host", "cache", "cli", "check"]
LIMITS = {
    "fields.RunResult": 13,
    "result_string.host": 0,
    "result_string.cli": 0,
    "positional_reads.host": 0,
    "import_circles": 0,
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def matching_brace(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(text) - 1


def strip_cfg_test(text):
    """Drops every `#[cfg(test)]` item (a module or function with a body)."""
    out = []
    pos = 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < pos:
            continue
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace == -1:
            continue
        out.append(text[pos : m.start()])
        if semi != -1 and semi < brace:
            pos = semi + 1
        else:
            pos = matching_brace(text, brace) + 1
    out.append(text[pos:])
    return "".join(out)


def library_files(crate):
    src = os.path.join(ROOT, crate, "src")
    for dirpath, _, names in sorted(os.walk(src)):
        for name in sorted(names):
            if not name.endswith(".rs") or name.endswith("_tests.rs") or name == "tests.rs":
                continue
            if "/tests" in dirpath[len(src) :] or "/bin" in dirpath[len(src) :]:
                continue
            path = os.path.join(dirpath, name)
            if crate == "cli" and is_binary_only(path):
                continue
            yield path


_BIN_MODULES = None


def is_binary_only(path):
    """The CLI's main.rs and the modules only main.rs declares are the binary, not the library."""
    global _BIN_MODULES
    if _BIN_MODULES is None:
        main_rs = os.path.join(ROOT, "cli", "src", "main.rs")
        main = open(main_rs).read() if os.path.exists(main_rs) else ""
        _BIN_MODULES = {"main"} | set(re.findall(r"^\s*mod (\w+);", main, flags=re.M))
    rel = os.path.relpath(path, os.path.join(ROOT, "cli", "src"))
    return rel.split("/")[0].removesuffix(".rs") in _BIN_MODULES


def code_of(path):
    return strip_cfg_test(strip_comments(open(path, encoding="utf-8").read()))


def struct_fields(name):
    pattern = re.compile(r"pub struct " + name + r"\b[^{;]*\{")
    for crate in ("host",):
        for path in library_files(crate):
            text = code_of(path)
            m = pattern.search(text)
            if m:
                body = text[m.end() : matching_brace(text, m.end() - 1)]
                return len(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?[a-z_][a-z0-9_]*\s*:", body, flags=re.M))
    return None


def result_string_count(crate):
    count = 0
    for path in library_files(crate):
        text = code_of(path)
        for m in re.finditer(r"\bResult<", text):
            depth, i, last_arg = 1, m.end(), m.end()
            while i < len(text) and depth:
                c = text[i]
                if c in "<([":
                    depth += 1
                elif c in ">)]":
                    depth -= 1
                elif c == "," and depth == 1:
                    last_arg = i + 1
                i += 1
            if last_arg != m.end() and text[last_arg : i - 1].strip() == "String":
                count += 1
    return count


def positional_reads(crate):
    return sum(len(re.findall(r"\bv\[[0-9]+\]", code_of(p))) for p in library_files(crate))


def module_file(src, parts):
    """The deepest existing file for module path `parts` under `src`, and how many parts it used."""
    best = os.path.join(src, "lib.rs")
    if not os.path.exists(best):
        best = os.path.join(src, "main.rs")
    here = src
    for part in parts:
        flat, nested = os.path.join(here, part + ".rs"), os.path.join(here, part, "mod.rs")
        if os.path.exists(flat):
            best = flat
        elif os.path.exists(nested):
            best = nested
        else:
            break
        here = os.path.join(here, part)
    return best


def module_path(src, path):
    rel = os.path.relpath(path, src).removesuffix(".rs").split("/")
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return []
    return rel


def expand_use(tree):
    """`a::{b, c::{d}}` -> [a::b, a::c::d] (enough of the grammar for module paths)."""
    tree = tree.strip()
    brace = tree.find("{")
    if brace == -1:
        return [tree]
    head, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [p for part in parts if part.strip() for p in expand_use(head + part.strip())]


def import_edges(crate):
    src = os.path.join(ROOT, crate, "src")
    files = set(library_files(crate))
    edges = {}
    for path in files:
        text = code_of(path)
        here = module_path(src, path)
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths.extend(expand_use(m.group(1)))
        paths.extend(re.findall(r"(?<![\w:])((?:crate|super)(?:::(?:super|\w+))+)", text))
        targets = set()
        for p in paths:
            segs = [s.strip() for s in re.split(r"::", p) if s.strip()]
            if not segs:
                continue
            if segs[0] == "crate":
                base, rest = [], segs[1:]
            elif segs[0] == "super":
                base, rest = here[:-1], segs[1:]
                while rest and rest[0] == "super":
                    base, rest = base[:-1], rest[1:]
            else:
                continue
            rest = [re.sub(r"\s+as\s+\w+$", "", s) for s in rest]
            target = module_file(src, base + [s for s in rest if re.fullmatch(r"[a-z_][a-z0-9_]*", s)])
            if target != path and target in files:
                targets.add(target)
        edges[path] = targets
    return edges


def circles(edges):
    """Strongly connected sets of two or more files (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    check = "--check" in sys.argv
    counts = {}
    for name in ("World", "RunResult", "Slot", "Recorder", "RunSpec"):
        counts["fields." + name] = struct_fields(name)
    for crate in ("host", "cli"):
        counts["result_string." + crate] = result_string_count(crate)
    counts["positional_reads.host"] = positional_reads("host")
    found = []
    for crate in CRATES:
        found.extend(circles(import_edges(crate)))
    counts["import_circles"] = len(found)
    for name, value in counts.items():
        print(f"{name} {value}")
    for group in found:
        print("circle: " + " ".join(os.path.relpath(p, ROOT) for p in group))
    # A struct the count cannot find (renamed, moved) fails too, except in a made-up tree.
    missing = [n for n in LIMITS if counts.get(n) is None and "--root" not in sys.argv]
    if check and missing:
        print("not found (rename them here too): " + ", ".join(missing), file=sys.stderr)
        return 1
    over = [n for n, limit in LIMITS.items() if counts.get(n) is not None and counts[n] > limit]
    if check and over:
        print("over the limit: " + ", ".join(f"{n} ({counts[n]} > {LIMITS[n]})" for n in over), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
