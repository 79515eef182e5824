"""Compare the sweeps of one config on two machines: the same seeds, the same
failing seeds and the same trace digest, or exit 1 naming the first
difference. Usage: same_digest.py REFERENCE.json OTHER.json"""

import json
import sys


def value_of_failing(summary: dict) -> list:
    return [failure["seed"] for failure in summary.get("failures") or []]


# What must agree; timings (real_ms, elapsed_ms) are left out.
FIELDS = {
    "seeds": lambda s: s.get("seeds"),
    "errors": lambda s: s.get("errors"),
    "failing seeds": value_of_failing,
    "trace hashes": lambda s: s.get("trace_hashes"),
    "trace_digest": lambda s: s.get("trace_digest"),
}


def main(reference_path: str, other_path: str) -> int:
    reference = json.load(open(reference_path))
    other = json.load(open(other_path))
    for field, value in FIELDS.items():
        if value(reference) != value(other):
            print(f"cross: {field} differs: {value(reference)!r} on the reference, {value(other)!r} here")
            return 1
    failing = value_of_failing(reference)
    print(f"cross: same trace digest {reference['trace_digest']} ({reference['seeds']} seeds, failing {failing})")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
