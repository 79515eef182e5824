#!/usr/bin/env bash
# The Go build overlays (cli/src/overlay.rs, docs/net-overlay.md) under every
# supported Go release, each fetched through the module proxy by GOTOOLCHAIN:
#   - netconf prints the same natively and under net_overlay (client#1 lines);
#   - netdial and etcdwal (compat_overlay) print their expected lines
#     (cli/tests/net_overlay.rs);
#   - examples/httpkv/seedfall.fixed.json passes seeds 1-20.
# The programs run from a copy under $GO_RELEASES_WORK, so a release's build
# never races the working tree's; a release older than a copied go.mod's `go`
# line gets that line lowered to it (the programs need nothing newer). etcdwal
# needs Go 1.26 (etcd v3.7.3 declares go 1.26.0, main.go uses new(expr)):
# under 1.25 netdial is built with compat_overlay on instead, which compiles
# syscall/flock_wasip1.go into that release's syscall.
#
# One line per release, `go-release go1.27.3: ok (95s)` (or FAIL, after what
# did not match and its output on stderr); exit 1 on any mismatch, 2 when it
# cannot run. About 1.5 minutes with warm caches on the 2-core machine, 3.5
# with empty Go build and compiled-code caches.
#
# Environment: SEEDFALL (default target/debug/seedfall), GO_RELEASES_WORK
# (default target/go-releases), SEEDFALL_CACHE_DIR (default
# $GO_RELEASES_WORK/cache).
set -euo pipefail

RELEASES=(go1.25.12 go1.26.8 go1.27.3)

cd "$(dirname "$0")/.."
root=$PWD
SEEDFALL=${SEEDFALL:-target/debug/seedfall}
[[ -x $SEEDFALL ]] || { echo "go-releases: $SEEDFALL is not an executable (set SEEDFALL)" >&2; exit 2; }
SEEDFALL=$(realpath "$SEEDFALL")
work=$(realpath -m "${GO_RELEASES_WORK:-target/go-releases}")
export SEEDFALL_CACHE_DIR=${SEEDFALL_CACHE_DIR:-$work/cache}

NETDIAL_LINES=(
  "[0s] * hosts: 10.0.0.1 server, 10.0.0.2 client"
  "client#1 | server resolves to [10.0.0.1] <nil>"
  "client#1 | server says hello 10.0.0.2"
  "client#1 | remote 10.0.0.1:7001 local ip 10.0.0.2"
  "client#1 | no listener refused: true"
  "client#1 | unknown ip unreachable: true"
  "client#1 | unknown name not found: true"
)
ETCDWAL_LINES=(
  "client#1 | segment locked while open"
  "client#1 | segment free after close"
  "client#1 | read back"
  "client#1 | wal ok"
)

failed=0
# fail WHAT OUTPUT: report a mismatch of the current release.
fail() {
  echo "go-release $version: $1" >&2
  printf '%s\n' "$2" | tail -n 40 >&2
  failed=1
  ok=0
}

# replay NAME CONFIG LINE...: seed 1 of CONFIG passes and prints every LINE.
replay() {
  local name=$1 config=$2 out line
  shift 2
  out=$("$SEEDFALL" replay -c "$config" -seed 1 2>&1) || { fail "$name exited non-zero" "$out"; return; }
  for line in "$@"; do
    grep -qF -- "$line" <<<"$out" || { fail "$name: missing \"$line\"" "$out"; return; }
  done
}

# newer_or_same A B: Go release A (1.25) is B or newer.
newer_or_same() {
  [[ $(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n1) == "$1" ]]
}

# copy SRC DEST PATH...: a fresh copy of SRC's PATHs (no .seedfall state),
# each go.mod's `go` line lowered to this release when it is newer.
copy() {
  local src=$1 dest=$2 mod
  shift 2
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -C "$src" --exclude=.seedfall -cf - "$@" | tar -C "$dest" -xf -
  while IFS= read -r mod; do
    local want
    want=$(sed -n 's/^go \([0-9]*\.[0-9]*\).*$/\1/p' "$mod")
    if ! newer_or_same "$minor" "$want"; then
      (cd "$(dirname "$mod")" && go mod edit -go="$minor")
    fi
  done < <(find "$dest" -name go.mod)
}

for version in "${RELEASES[@]}"; do
  started=$SECONDS
  ok=1
  export GOTOOLCHAIN=$version
  if ! have=$(go env GOVERSION 2>&1) || [[ $have != "$version" ]]; then
    echo "go-releases: GOTOOLCHAIN=$version gives \"$have\"" >&2
    exit 2
  fi
  minor=${version#go}
  minor=${minor%.*}
  dir=$work/$version
  programs=(go.mod netconf netdial)
  newer_or_same "$minor" 1.26 && programs+=(etcdwal)
  copy "$root/cli/tests/go" "$dir/cli" "${programs[@]}"
  copy "$root/examples" "$dir/examples" go.mod httpkv

  cd "$dir/cli"
  if ! native=$(go run ./netconf 2>netconf.stderr) || [[ $native != *done ]]; then
    fail "netconf does not run natively" "$native$(cat netconf.stderr)"
  elif ! out=$("$SEEDFALL" replay -c netconf/seedfall.json -seed 1 2>&1); then
    fail "netconf under seedfall exited non-zero" "$out"
  else
    simulated=$(awk '{ i = index($0, "client#1 | "); if (i) print substr($0, i + 11) }' <<<"$out")
    [[ $simulated == "$native" ]] ||
      fail "netconf differs from the native run (< native, > seedfall)" \
        "$(diff <(echo "$native") <(echo "$simulated") || true)"
  fi

  replay netdial netdial/seedfall.json "${NETDIAL_LINES[@]}"
  if newer_or_same "$minor" 1.26; then
    replay etcdwal etcdwal/seedfall.json "${ETCDWAL_LINES[@]}"
  else
    sed 's/"net_overlay": true/"net_overlay": true, "compat_overlay": true/' netdial/seedfall.json >netdial/compat.json
    replay "netdial with compat_overlay" netdial/compat.json "${NETDIAL_LINES[@]}"
  fi

  cd "$dir/examples"
  out=$("$SEEDFALL" run -c httpkv/seedfall.fixed.json -seeds 1-20 2>&1) ||
    fail "httpkv seedfall.fixed.json seeds 1-20 did not pass" "$out"

  cd "$root"
  if ((ok)); then
    echo "go-release $version: ok ($((SECONDS - started))s)"
  else
    echo "go-release $version: FAIL ($((SECONDS - started))s)"
  fi
done
exit "$failed"
