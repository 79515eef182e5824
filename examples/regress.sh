#!/usr/bin/env bash
# Regression check of the example systems: for every examples/<ex>/expected.json
# and every entry in it, run
#
#   "$SEEDFALL" run -c examples/<ex>/<config> -seeds <seeds> [-check] --json <tmp>
#
# and compare the outcome with the entry:
#
#   {"config": "seedfall.json", "seeds": "1-500", "verdict": "fail",
#    "class": "property", "node": "client", "message": "acknowledged entry"}
#       passes when the exit code is 1 and the first failure of the lowest
#       failing seed has that class and node and contains that message
#       (each of class, node and message is optional);
#   {"config": "seedfall.fixed.json", "seeds": "1-1000", "verdict": "pass", "check": true}
#       passes when the exit code is 0; "check": true adds -check.
#   {"config": "journal.json", "seeds": "1-20", "verdict": "fail", "failed_at_least": 15, ...}
#       a fail entry with "failed_at_least" also needs that many failing seeds;
#   {"config": "journal-random.json", "seeds": "1-20", "verdict": "count", "failed_at_most": 5, ...}
#       passes when the exit code is 0 or 1 and the number of failing seeds
#       lies within "failed_at_least" (default 0) and "failed_at_most"
#       (default: every seed); if any seed failed, its first failure must
#       match class, node and message as for "fail". For strategies whose
#       hit rate is the point (pct against random).
#   {"test": "./bank", "seeds": "1-300", "verdict": "count", "failed_at_least": 10, ...}
#       an entry with "test" instead of "config" runs `seedfall test <test>
#       -seeds <seeds> [-check]` in examples/<ex> and is judged the same way:
#       its seeds are every test's runs (a failing saved schedule counts as
#       one), a failure's class is "test", its node the test's name and its
#       message the finding's signature.
#
# One line per entry ("ok   ..." or "FAIL ...", ending in its wall time); the script exits 1 if any
# entry does not match, 2 if it cannot run at all.
#
# Usage: examples/regress.sh [EXAMPLE...]     (default: every example)
#
# Environment:
#   SEEDFALL           the seedfall binary (default target/release/seedfall,
#                      brought up to date with `cargo build --release -p seedfall`)
#   REGRESS_SEEDS_MAX  run at most this many seeds per entry, the first ones of
#                      its range (default: the whole range). A fail entry whose
#                      first failing seed lies beyond the cap then fails here;
#                      "failed_at_least" drops by the number of seeds cut off
#                      (the most of them that could have failed), so a capped
#                      run asks only what the full range needs of its seeds.
#                      An entry's own "quick_seeds": K lowers that cap to K
#                      for it (slow configs: a 90 s cluster run per seed).
#   REGRESS_VERBOSE=1  print the output of every run, not only of mismatches
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

if [[ -z ${SEEDFALL:-} ]]; then
  SEEDFALL=target/release/seedfall
  # Always through cargo, so a stale binary is never what gets checked.
  cargo build --release -q -p seedfall || exit 2
fi
if [[ ! -x $SEEDFALL ]]; then
  echo "regress: $SEEDFALL is not an executable (set SEEDFALL)" >&2
  exit 2
fi
seedfall_abs=$(realpath "$SEEDFALL")
seeds_max=${REGRESS_SEEDS_MAX:-}
if [[ -n $seeds_max && ! $seeds_max =~ ^[1-9][0-9]*$ ]]; then
  echo "regress: REGRESS_SEEDS_MAX must be a positive whole number, found \"$seeds_max\"" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if (($#)); then
  examples=("$@")
else
  examples=()
  for f in examples/*/expected.json; do
    [[ -e $f ]] && examples+=("$(basename "$(dirname "$f")")")
  done
fi
if ((${#examples[@]} == 0)); then
  echo "regress: no examples/*/expected.json" >&2
  exit 2
fi

mismatches=0
entries=0
for ex in "${examples[@]}"; do
  expected=examples/$ex/expected.json
  if [[ ! -f $expected ]]; then
    echo "FAIL $ex: no $expected"
    mismatches=$((mismatches + 1))
    continue
  fi
  # One line per entry: index, config, seeds (capped), check flag.
  if ! python3 - "$expected" "$seeds_max" >"$tmp/entries" <<'EOF'; then
import json, re, sys
path, cap = sys.argv[1], sys.argv[2]
entries = json.load(open(path))
if not isinstance(entries, list):
    sys.exit(f"{path}: expected a JSON array of entries")
for i, e in enumerate(entries):
    if ("config" in e) == ("test" in e):
        sys.exit(f"{path}: entry {i} needs one of 'config' and 'test'")
    for field in ("seeds", "verdict"):
        if field not in e:
            sys.exit(f"{path}: entry {i} has no {field!r}")
    if e["verdict"] not in ("pass", "fail", "count"):
        sys.exit(f"{path}: entry {i}: verdict must be \"pass\", \"fail\" or \"count\", found {e['verdict']!r}")
    for bound in ("failed_at_least", "failed_at_most"):
        if bound in e and (not isinstance(e[bound], int) or e[bound] < 0):
            sys.exit(f"{path}: entry {i}: {bound} must be a whole number, found {e[bound]!r}")
        if bound in e and e["verdict"] == "pass":
            sys.exit(f"{path}: entry {i}: {bound} needs verdict \"fail\" or \"count\"")
    seeds = str(e["seeds"])
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", seeds)
    if not m:
        sys.exit(f"{path}: entry {i}: seeds must be N or A-B, found {seeds!r}")
    lo = int(m.group(1))
    hi = full = int(m.group(2) or lo)
    quick = e.get("quick_seeds")
    if quick is not None and (not isinstance(quick, int) or quick < 1):
        sys.exit(f"{path}: entry {i}: quick_seeds must be a positive whole number, found {quick!r}")
    if cap:
        hi = min(hi, lo + min(int(cap), quick or int(cap)) - 1)
    seeds = f"{lo}-{hi}" if hi != lo else str(lo)
    target = e["config"] if "config" in e else "test:" + e["test"]
    print(i, target, seeds, "1" if e.get("check") else "0", full - hi, sep="\t")
EOF
    echo "FAIL $ex: cannot read $expected"
    mismatches=$((mismatches + 1))
    continue
  fi
  while IFS=$'\t' read -r idx config seeds check cut; do
    entries=$((entries + 1))
    json=$tmp/$ex.$idx.json
    out=$tmp/$ex.$idx.out
    rm -f "$json"
    started=$SECONDS
    if [[ $config == test:* ]]; then
      args=(test "${config#test:}" -seeds "$seeds")
      ((check)) && args+=(-check)
      (cd "examples/$ex" && "$seedfall_abs" "${args[@]}" --json "$json") >"$out" 2>&1
      rc=$?
      [[ -f $json ]] && { python3 - "$json" <<'EOF' || rc=2; }
# The test document as a run summary: every test's seeds are runs.
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
tests = [t for p in doc["packages"] for t in p.get("tests", [])]
failures = {}
for t in tests:
    for f in t["findings"]:
        for seed in f["failing_seeds"]:
            failures.setdefault(seed, []).append({"class": "test", "node": t["test"], "message": f["signature"]})
corpus = [c for p in doc["packages"] for c in p.get("corpus", [])]
failed = sum(t["failed"] for t in tests) + sum(1 for c in corpus if c["verdict"] != "pass")
runs = sum(t["seeds"] for t in tests) + len(corpus)
diverged = [d["seed"] for t in tests for d in t["diverged"]]
summary = {"exit_code": doc["exit_code"], "passed": runs - failed, "failed": failed, "horizon": 0, "diverged": diverged,
           "failures": [{"seed": s, "failures": fs} for s, fs in sorted(failures.items())],
           "lowest_failing_seed": min(failures) if failures else None}
json.dump(summary, open(path, "w"))
EOF
    else
      args=(run -c "examples/$ex/$config" -seeds "$seeds")
      ((check)) && args+=(-check)
      "$SEEDFALL" "${args[@]}" --json "$json" >"$out" 2>&1
      rc=$?
    fi
    took=$((SECONDS - started))
    verdict=$(python3 - "$expected" "$idx" "$json" "$rc" "$ex" "$config" "$seeds" "$cut" <<'EOF'
import json, sys
expected, idx, path, rc, ex, config, seeds, cut = sys.argv[1:]
e = json.load(open(expected))[int(idx)]
rc = int(rc)
head = f"{ex} {config} {seeds}"

def short(s, n=60):
    return s if len(s) <= n else s[: n - 3] + "..."

def out(ok, text):
    print(("ok   " if ok else "FAIL ") + head + ": " + text)
    sys.exit(0 if ok else 1)

try:
    summary = json.load(open(path))
except (OSError, ValueError) as err:
    summary = None
    why = f"no JSON summary ({err.__class__.__name__})"

if summary is not None and summary.get("exit_code", rc) != rc:
    out(False, f"exit code {rc} but the summary says {summary.get('exit_code')}")

def counts():
    if summary is None:
        return why
    return f"{summary.get('passed', '?')} passed, {summary.get('failed', '?')} failed, {summary.get('horizon', '?')} at the horizon"

def first_failure():
    """(seed, first failure of the lowest failing seed) or (None, None)."""
    runs = summary.get("failures") or []
    if not runs:
        return None, None
    seed = summary.get("lowest_failing_seed")
    if seed is None:
        seed = min(r["seed"] for r in runs)
    run = next((r for r in runs if r.get("seed") == seed), None)
    if run is None or not run.get("failures"):
        return seed, None
    return seed, run["failures"][0]

def describe(f):
    return f"{f.get('class')} {f.get('node')} {json.dumps(short(f.get('message', '')))}"

if e["verdict"] == "pass":
    if rc == 0:
        out(True, f"pass ({counts()})")
    if rc == 1 and summary is not None:
        seed, f = first_failure()
        if f is not None:
            out(False, f"expected pass, got fail {describe(f)} (seed {seed}; {counts()})")
    out(False, f"expected pass, got exit {rc} ({counts()})")

want = " ".join(x for x in (e.get("class"), e.get("node"), json.dumps(e["message"]) if "message" in e else None) if x)
if e["verdict"] == "count":
    if rc not in (0, 1):
        out(False, f"expected 0 or 1, got exit {rc} ({counts()})")
    if summary is None:
        out(False, f"exit {rc} but {why}")
elif rc != 1:
    out(False, f"expected fail {want}, got exit {rc} ({counts()})")
if summary is None:
    out(False, f"expected fail {want}: exit 1 but {why}")
failed = summary.get("failed", 0)
low, high = max(0, e.get("failed_at_least", 0) - int(cut)), e.get("failed_at_most")
bounds = f"at least {low}" + (f" and at most {high}" if high is not None else "")
if failed < low or (high is not None and failed > high):
    out(False, f"{failed} seeds failed, expected {bounds} ({counts()})")
if e["verdict"] == "count" and failed == 0:
    out(True, f"0 seeds failed, {bounds} expected ({counts()})")
seed, f = first_failure()
if f is None:
    out(False, f"expected fail {want}: exit 1 but the summary lists no failure for the lowest failing seed {seed}")
diffs = []
for field in ("class", "node"):
    if field in e and f.get(field) != e[field]:
        diffs.append(f"{field} {f.get(field)!r}, expected {e[field]!r}")
if "message" in e and e["message"] not in f.get("message", ""):
    diffs.append(f"message lacks {json.dumps(e['message'])}")
if diffs:
    out(False, f"fail {describe(f)} (seed {seed}): " + "; ".join(diffs))
tally = f"; {failed} seeds failed, {bounds} expected" if "failed_at_least" in e or "failed_at_most" in e else ""
out(True, f"fail {describe(f)} (seed {seed}{tally})")
EOF
    )
    status=$?
    echo "$verdict [${took}s]"
    if ((status != 0)); then
      mismatches=$((mismatches + 1))
      echo "     \$ $SEEDFALL ${args[*]}"
      tail -n 15 "$out" | sed 's/^/     | /'
    elif [[ ${REGRESS_VERBOSE:-} == 1 ]]; then
      sed 's/^/     | /' "$out"
    fi
  done <"$tmp/entries"
done

if ((mismatches)); then
  echo "regress: $mismatches of $entries entries did not match"
  exit 1
fi
echo "regress: all $entries entries match"
