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
# Besides its verdict, every entry is held to:
#   "lin_unknown_at_most": N   (default 0) at most N seeds whose linearizability
#       search ran out of budget (the summary's "linearizability_unknown"): an
#       unknown seed passes but proves nothing, so by default any fails the entry;
#   "check": true              the summary's "diverged" list must be empty: a
#       seed that ran differently twice fails the entry even when the verdict
#       matches (a fail entry included).
# The rules are examples/regress_judge.py's (tested by cli/tests/regress_judge.rs).
#
# One line per entry ("ok   ..." or "FAIL ...", ending in its wall time); the script exits 1 if any
# entry does not match, 2 if it cannot run at all.
#
# Usage: examples/regress.sh [--ledger FILE] [EXAMPLE[/CONFIG]...]     (default: every example)
#
#   EXAMPLE/CONFIG     only that example's entries for CONFIG (natsjs/seedfall.always.json)
#
#   --ledger FILE      run every entry at its full range (REGRESS_SEEDS_MAX is
#                      refused) and append one row per entry to FILE (a
#                      markdown table, written with its header if missing):
#                      date, commit, seedfall version, platform, example,
#                      config, seeds, passed, failed, linearizability
#                      unknown, diverged seeds, matched, wall time.
#
# Environment:
#   SEEDFALL           the seedfall binary (default target/release/seedfall,
#                      brought up to date with `cargo build --release -p seedfall`)
#   REGRESS_SEEDS_MAX  run at most this many seeds per entry, the first ones of
#                      its range (default: the whole range). A fail entry whose
#                      first failing seed lies beyond the cap then fails here;
#                      "failed_at_least" drops by the number of seeds cut off
#                      (the most of them that could have failed), so a capped
#                      run asks only what the full range needs of its seeds;
#                      an entry expecting every seed to fail ("failed_at_least"
#                      at least the range's size) still needs every seed that
#                      ran to fail. "lin_unknown_at_most" is not scaled.
#                      An entry's own "quick_seeds": K lowers that cap to K
#                      for it (slow configs: a 90 s cluster run per seed).
#   REGRESS_VERBOSE=1  print the output of every run, not only of mismatches
set -uo pipefail
ledger=
if [[ ${1:-} == --ledger ]]; then
  [[ -n ${2:-} ]] || { echo "regress: --ledger needs a FILE" >&2; exit 2; }
  ledger=$(realpath -m "$2")
  shift 2
  if [[ -n ${REGRESS_SEEDS_MAX:-} ]]; then
    echo "regress: --ledger runs every entry at its full range; unset REGRESS_SEEDS_MAX" >&2
    exit 2
  fi
fi
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
# The rules, apart so they can be tested on made-up summaries (cli/tests/regress_judge.rs).
judge=$root/examples/regress_judge.py
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

if [[ -n $ledger && ! -s $ledger ]]; then
  cat >"$ledger" <<'EOF'
# Ledger: full-range runs of the examples' expected verdicts

Written by `examples/regress.sh --ledger docs/ledger.md`: one row per `examples/*/expected.json`
entry and run, at the entry's full seed range, newest at the bottom. A result stated for N seeds in
the README or docs/findings.md has a row here. `commit` ends in `+` when the work tree had changes.

| date (UTC) | commit | seedfall | platform | example | config | seeds | passed | failed | lin unknown | diverged | matched | wall |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+"
version=$("$SEEDFALL" --version 2>/dev/null | awk '{print $2}')
platform="$(uname -s) $(uname -m)"

mismatches=0
entries=0
for selected in "${examples[@]}"; do
  ex=${selected%%/*}
  only_config=
  [[ $selected == */* ]] && only_config=${selected#*/}
  expected=examples/$ex/expected.json
  if [[ ! -f $expected ]]; then
    echo "FAIL $ex: no $expected"
    mismatches=$((mismatches + 1))
    continue
  fi
  # One line per entry: index, config, seeds (capped), check flag.
  if ! python3 "$judge" entries "$expected" "$seeds_max" >"$tmp/entries"; then
    echo "FAIL $ex: cannot read $expected"
    mismatches=$((mismatches + 1))
    continue
  fi
  while IFS=$'\t' read -r idx config seeds check cut; do
    [[ -n $only_config && $config != "$only_config" ]] && continue
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
      # The test document as a run summary: every test's seeds are runs.
      [[ -f $json ]] && { python3 "$judge" test-summary "$json" || rc=2; }
    else
      args=(run -c "examples/$ex/$config" -seeds "$seeds")
      ((check)) && args+=(-check)
      "$SEEDFALL" "${args[@]}" --json "$json" >"$out" 2>&1
      rc=$?
    fi
    took=$((SECONDS - started))
    verdict=$(python3 "$judge" judge "$expected" "$idx" "$json" "$rc" "$ex" "$config" "$seeds" "$cut")
    status=$?
    echo "$verdict [${took}s]"
    if [[ -n $ledger ]]; then
      matched=$([[ $status == 0 ]] && echo yes || echo NO)
      python3 - "$json" "$(date -u '+%Y-%m-%d %H:%M')" "$commit" "$version" "$platform" "$ex" "$config" "$seeds" "$matched" "${took}s" "$check" >>"$ledger" <<'EOF'
import json, sys
path, *cells = sys.argv[1:]
date, commit, version, platform, ex, config, seeds, matched, wall, check = cells
try:
    s = json.load(open(path))
except (OSError, ValueError):
    s = {}
diverged = len(s.get("diverged") or []) if check == "1" else "-"
row = [date, commit, version, platform, ex, config.replace("|", "\\|"), seeds, s.get("passed", "?"), s.get("failed", "?"),
       s.get("linearizability_unknown", 0), diverged, matched, wall]
print("| " + " | ".join(str(c) for c in row) + " |")
EOF
    fi
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
