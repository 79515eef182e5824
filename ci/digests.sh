#!/usr/bin/env bash
# The reference trace digests: runs that must not change when code that only
# observes or reorganises changes (issue 57's before/after; issue 62 keeps
# them in one file). Prints `name digest` lines; with --check FILE, compares
# them with FILE and exits 1 on any difference.
#   SEEDFALL=target/release/seedfall ci/digests.sh > ci/digests.txt
#   SEEDFALL=target/release/seedfall ci/digests.sh --check ci/digests.txt
set -euo pipefail
cd "$(dirname "$0")/.."
B="${SEEDFALL:-target/release/seedfall}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

digest() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace_digest"])' "$1"; }

run() { # name config seeds
    # A failing sweep exits 1 and still writes its JSON: the digest is the point here.
    "$B" run -c "$2" --seeds "$3" --json "$tmp/$1.json" >/dev/null 2>&1 || [ -s "$tmp/$1.json" ]
    echo "$1 $(digest "$tmp/$1.json")"
}

{
    run kvlog 'examples/kvlog/seedfall.json' 1-200
    run kvlog-fixed 'examples/kvlog/seedfall.fixed.json' 1-200
    run raftkv-lin 'examples/raftkv/lin.json' 1-10
    run natsjs-cluster 'examples/natsjs/cluster.json' 1-5
    "$B" explore -c examples/kvlog/seedfall.fixed.json --seeds 1-4 --budget 60 -j 1 --json "$tmp/explore.json" \
        >/dev/null 2>&1 || [ -s "$tmp/explore.json" ]
    echo "explore-kvlog-fixed $(digest "$tmp/explore.json")"
    (cd examples/gotest && "$OLDPWD/$B" test ./bank --seeds 1-20 --json "$tmp/gotest.json" >/dev/null 2>&1) ||
        [ -s "$tmp/gotest.json" ]
    echo "gotest-bank $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(t["trace_digest"][:16] for p in d["packages"] for t in p["tests"]))' "$tmp/gotest.json")"
} >"$tmp/now.txt"

if [ "${1:-}" = "--check" ]; then
    if diff -u "$2" "$tmp/now.txt"; then echo "digests: all $(wc -l <"$2") match"; else
        echo "digests: differ from $2" >&2
        exit 1
    fi
else
    cat "$tmp/now.txt"
fi
