#!/usr/bin/env python3
"""The judge of examples/regress.sh, apart so its rules can be tested on made-up
summaries (examples/regress_judge_test.py, run by cli/tests/regress_judge.rs).

    regress_judge.py entries EXPECTED CAP
        one tab-separated line per entry of EXPECTED: index, target
        (config, or "test:" and the test pattern), seeds (capped at CAP
        seeds when CAP is not empty), check (1 or 0), seeds cut off
    regress_judge.py test-summary JSON
        rewrites `seedfall test --json`'s document in place as a run summary
    regress_judge.py judge EXPECTED INDEX JSON RC EXAMPLE TARGET SEEDS CUT
        prints "ok   ..." or "FAIL ..." for the entry; exits 0 or 1

The rules (regress.sh's header says them for people):
- verdict "pass": exit code 0; "fail": exit code 1 and the lowest failing
  seed's first failure matches class, node and message; "count": exit code 0
  or 1 and the number of failing seeds within the bounds.
- "failed_at_least" drops by the number of seeds cut off by the cap (the most
  of them that could have failed), except that an entry expecting every seed
  to fail (failed_at_least at least the whole range's size) still needs every
  seed that ran to fail.
- Always: more seeds whose linearizability search ran out of budget
  (summary "linearizability_unknown") than the entry's "lin_unknown_at_most"
  (default 0) fail the entry.
- "check": true: a non-empty "diverged" list fails the entry, whatever its
  verdict; so does a missing summary, which leaves nothing to read it from.
"""
import json
import re
import sys


class Bad(Exception):
    """expected.json is not what regress.sh can run."""


def seed_range(seeds):
    """(lo, hi) of "N" or "A-B"."""
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", str(seeds))
    if not m:
        return None
    lo = int(m.group(1))
    return lo, int(m.group(2) or lo)


def entries(path, cap):
    """The lines `entries` prints, for expected.json at `path` and the cap ("" for none)."""
    try:
        with open(path) as f:
            all_entries = json.load(f)
    except (OSError, ValueError) as err:
        raise Bad(f"{path}: {err}")
    if not isinstance(all_entries, list):
        raise Bad(f"{path}: expected a JSON array of entries")
    lines = []
    for i, e in enumerate(all_entries):
        if ("config" in e) == ("test" in e):
            raise Bad(f"{path}: entry {i} needs one of 'config' and 'test'")
        for field in ("seeds", "verdict"):
            if field not in e:
                raise Bad(f"{path}: entry {i} has no {field!r}")
        if e["verdict"] not in ("pass", "fail", "count"):
            raise Bad(f"{path}: entry {i}: verdict must be \"pass\", \"fail\" or \"count\", found {e['verdict']!r}")
        for bound in ("failed_at_least", "failed_at_most", "lin_unknown_at_most"):
            if bound in e and (not isinstance(e[bound], int) or isinstance(e[bound], bool) or e[bound] < 0):
                raise Bad(f"{path}: entry {i}: {bound} must be a whole number, found {e[bound]!r}")
        for bound in ("failed_at_least", "failed_at_most"):
            if bound in e and e["verdict"] == "pass":
                raise Bad(f"{path}: entry {i}: {bound} needs verdict \"fail\" or \"count\"")
        span = seed_range(e["seeds"])
        if span is None:
            raise Bad(f"{path}: entry {i}: seeds must be N or A-B, found {str(e['seeds'])!r}")
        lo, full = span
        hi = full
        quick = e.get("quick_seeds")
        if quick is not None and (not isinstance(quick, int) or quick < 1):
            raise Bad(f"{path}: entry {i}: quick_seeds must be a positive whole number, found {quick!r}")
        if cap:
            hi = min(hi, lo + min(int(cap), quick or int(cap)) - 1)
        seeds = f"{lo}-{hi}" if hi != lo else str(lo)
        target = e["config"] if "config" in e else "test:" + e["test"]
        lines.append("\t".join(str(x) for x in (i, target, seeds, "1" if e.get("check") else "0", full - hi)))
    return lines


def test_summary(doc):
    """`seedfall test --json`'s document as a run summary: every test's seeds are runs."""
    tests = [t for p in doc["packages"] for t in p.get("tests", [])]
    failures = {}
    for t in tests:
        for f in t["findings"]:
            for seed in f["failing_seeds"]:
                failures.setdefault(seed, []).append({"class": "test", "node": t["test"], "message": f["signature"]})
    corpus = [c for p in doc["packages"] for c in p.get("corpus", [])]
    failed = sum(t["failed"] for t in tests) + sum(1 for c in corpus if c["verdict"] != "pass")
    runs = sum(t["seeds"] for t in tests) + len(corpus)
    diverged = sorted({d["seed"] for t in tests for d in t.get("diverged", [])})
    return {"exit_code": doc["exit_code"], "passed": runs - failed, "failed": failed, "horizon": 0,
            "failures": [{"seed": s, "failures": fs} for s, fs in sorted(failures.items())],
            "lowest_failing_seed": min(failures) if failures else None, "diverged": diverged,
            "linearizability_unknown": 0}


def short(s, n=60):
    return s if len(s) <= n else s[: n - 3] + "..."


def describe(f):
    return f"{f.get('class')} {f.get('node')} {json.dumps(short(f.get('message', '')))}"


def counts(summary, why):
    if summary is None:
        return why
    return (f"{summary.get('passed', '?')} passed, {summary.get('failed', '?')} failed, "
            f"{summary.get('horizon', '?')} at the horizon")


def first_failure(summary):
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


def verdict(e, summary, rc, cut, why):
    """(matches, text) for the entry's verdict alone."""
    tally = lambda: counts(summary, why)  # noqa: E731
    if e["verdict"] == "pass":
        if rc == 0:
            return True, f"pass ({tally()})"
        if rc == 1 and summary is not None:
            seed, f = first_failure(summary)
            if f is not None:
                return False, f"expected pass, got fail {describe(f)} (seed {seed}; {tally()})"
        return False, f"expected pass, got exit {rc} ({tally()})"

    want = " ".join(x for x in (e.get("class"), e.get("node"),
                                json.dumps(e["message"]) if "message" in e else None) if x)
    if e["verdict"] == "count":
        if rc not in (0, 1):
            return False, f"expected 0 or 1, got exit {rc} ({tally()})"
        if summary is None:
            return False, f"exit {rc} but {why}"
    elif rc != 1:
        return False, f"expected fail {want}, got exit {rc} ({tally()})"
    if summary is None:
        return False, f"expected fail {want}: exit 1 but {why}"
    failed = summary.get("failed", 0)
    lo, full = seed_range(e["seeds"])
    at_least, high = e.get("failed_at_least", 0), e.get("failed_at_most")
    if at_least >= full - lo + 1:
        # "Fails every seed" stays "every seed that ran fails" however many were
        # cut off (and however many tests of a "test" entry ran them): none passed.
        low = 1
        bounds = "every seed that ran" + (f" and at most {high}" if high is not None else "")
        if summary.get("passed", 0) > 0 or failed < low or (high is not None and failed > high):
            return False, f"{failed} seeds failed and {summary.get('passed')} passed, expected {bounds} to fail ({tally()})"
    else:
        low = max(0, at_least - cut)
        bounds = f"at least {low}" + (f" and at most {high}" if high is not None else "")
        if failed < low or (high is not None and failed > high):
            return False, f"{failed} seeds failed, expected {bounds} ({tally()})"
    if e["verdict"] == "count" and failed == 0:
        return True, f"0 seeds failed, {bounds} expected ({tally()})"
    seed, f = first_failure(summary)
    if f is None:
        return False, f"expected fail {want}: exit 1 but the summary lists no failure for the lowest failing seed {seed}"
    diffs = []
    for field in ("class", "node"):
        if field in e and f.get(field) != e[field]:
            diffs.append(f"{field} {f.get(field)!r}, expected {e[field]!r}")
    if "message" in e and e["message"] not in f.get("message", ""):
        diffs.append(f"message lacks {json.dumps(e['message'])}")
    if diffs:
        return False, f"fail {describe(f)} (seed {seed}): " + "; ".join(diffs)
    told = f"; {failed} seeds failed, {bounds} expected" if "failed_at_least" in e or "failed_at_most" in e else ""
    return True, f"fail {describe(f)} (seed {seed}{told})"


def always(e, summary):
    """What fails the entry whatever its verdict: divergences, unknown linearizability."""
    problems = []
    if e.get("check"):
        if summary is None:
            problems.append("-check but no summary to read its divergences from")
        elif summary.get("diverged"):
            problems.append(f"not deterministic: seeds {summary['diverged']}")
    if summary is not None:
        unknown = summary.get("linearizability_unknown", 0) or 0
        allowed = e.get("lin_unknown_at_most", 0)
        if unknown > allowed:
            problems.append(f"{unknown} seeds' linearizability unknown (search budget), "
                            f"at most {allowed} allowed (\"lin_unknown_at_most\")")
    return problems


def judge(e, summary, rc, cut, why="no JSON summary"):
    """(ok, text) for entry `e`, its run's summary (None: none, for reason `why`),
    exit code and number of seeds cut off by the cap."""
    if summary is not None and summary.get("exit_code", rc) != rc:
        return False, f"exit code {rc} but the summary says {summary.get('exit_code')}"
    ok, text = verdict(e, summary, rc, cut, why)
    problems = always(e, summary)
    if problems:
        return False, text + "; but " + "; ".join(problems)
    return ok, text


def main(argv):
    if len(argv) == 3 and argv[0] == "entries":
        try:
            for line in entries(argv[1], argv[2]):
                print(line)
        except Bad as err:
            sys.exit(str(err))
        return 0
    if len(argv) == 2 and argv[0] == "test-summary":
        with open(argv[1]) as f:
            doc = json.load(f)
        with open(argv[1], "w") as f:
            json.dump(test_summary(doc), f)
        return 0
    if len(argv) == 9 and argv[0] == "judge":
        expected, idx, path, rc, ex, config, seeds, cut = argv[1:]
        with open(expected) as f:
            e = json.load(f)[int(idx)]
        try:
            with open(path) as f:
                summary, why = json.load(f), None
        except (OSError, ValueError) as err:
            summary, why = None, f"no JSON summary ({err.__class__.__name__})"
        ok, text = judge(e, summary, int(rc), int(cut), why or "")
        print(("ok   " if ok else "FAIL ") + f"{ex} {config} {seeds}: " + text)
        return 0 if ok else 1
    sys.exit("usage: regress_judge.py entries EXPECTED CAP | test-summary JSON | "
             "judge EXPECTED INDEX JSON RC EXAMPLE TARGET SEEDS CUT")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
