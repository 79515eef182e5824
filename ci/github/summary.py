#!/usr/bin/env python3
"""The GitHub job summary of a seedfall sweep, from its -report JSON.

    summary.py REPORT.json [--output FILE] [--code N] [--fail-on WHAT] [--title TEXT] [--shard I/N]

Prints Markdown (the action appends it to $GITHUB_STEP_SUMMARY): what ran,
the verdict, a table with one row per finding (id, status, seeds failing of
those run, lowest seed, message, replay command) and, folded, the sweep's
printed output. The JSON's fields are DESIGN.md §1's (cli/src/sweep_report.rs
writes them). Standard library only; run as written by cli/tests/ci_manifests.rs.
"""

import argparse
import json
import sys

VERDICTS = {
    0: "passed",
    1: "failed: findings per `--fail-on {fail_on}`",
    2: "error (usage, config, build or internal)",
}


def cell(value, limit=300):
    """A Markdown table cell: one line, pipes escaped, at most `limit` characters."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("|", "\\|")


def code(value):
    """An inline-code table cell."""
    text = cell(value)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def table(doc):
    seeds = doc.get("summary", {}).get("seeds", 0)
    rows = [
        "| finding | status | seeds failing/run | lowest seed | message | replay |",
        "|---|---|---|---|---|---|",
    ]
    for f in doc.get("findings", []):
        status = f.get("status") or "—"
        lowest = f.get("lowest_seed")
        replay = f.get("replay")
        rows.append(
            "| {} | {} | {}/{} | {} | {} | {} |".format(
                code(f.get("id", "")),
                cell(status),
                f.get("count", 0),
                seeds,
                "—" if lowest is None else lowest,
                cell(f.get("message", "")),
                "—" if not replay else code(replay),
            )
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="the -report JSON (report.json)")
    parser.add_argument("--output", help="the sweep's printed output, shown folded")
    parser.add_argument("--code", type=int, help="seedfall's exit code")
    parser.add_argument("--fail-on", default="any")
    parser.add_argument("--title", default="seedfall sweep")
    parser.add_argument("--shard", help="the shard (I/N) this sweep ran: its findings are the merge's to judge")
    args = parser.parse_args()

    lines = [f"## {args.title}", ""]
    try:
        with open(args.report, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = None
        lines += [f"No report: {e}.", ""]
    if doc is not None:
        s = doc.get("summary", {})
        what = f"`{doc.get('config')}`, seeds `{doc.get('seeds')}`"
        lines.append(f"{what}: {s.get('seeds', 0)} seeds, {s.get('passed', 0)} passed, {s.get('failed', 0)} failed.")
        if s.get("horizon"):
            lines.append(f"{s['horizon']} seeds hit the time horizon.")
        # Every summary of a config with `linearizable` says it, even at 0 (docs/json.md).
        if s.get("linearizable") is not None or s.get("linearizability_unknown"):
            lines.append(f"linearizability unknown: {s.get('linearizability_unknown', 0)} seeds (search budget).")
    if args.code is not None:
        verdict = VERDICTS.get(args.code, "error").format(fail_on=args.fail_on)
        if args.shard and args.code == 1:
            verdict = f"findings, for the merge to judge per `--fail-on {args.fail_on}` (a shard keeps no history)"
        lines.append(f"Exit {args.code}: {verdict}.")
    lines.append("")
    if doc is not None:
        if doc.get("findings"):
            lines += table(doc)
        else:
            lines.append("No findings.")
        lines.append("")
    if args.output:
        try:
            with open(args.output, encoding="utf-8", errors="replace") as f:
                output = f.read()
        except OSError:
            output = None
        if output is not None:
            fence = "```"
            while fence in output:
                fence += "`"
            lines += ["<details><summary>seedfall output</summary>", "", fence, output.rstrip("\n"), fence, "",
                      "</details>", ""]
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
