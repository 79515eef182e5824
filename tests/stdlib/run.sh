#!/usr/bin/env bash
# Go's own standard-library tests under `seedfall exec`, next to the same
# tests under wazero, as one table: package | seedfall | wazero | same?
#
#   tests/stdlib/run.sh              the fast subset (what `cargo test` runs)
#   SEEDFALL_STDLIB=full tests/stdlib/run.sh    the full list
#   tests/stdlib/run.sh PKG...       the packages given
#
# Each package runs as `GOOS=wasip1 GOARCH=wasm go test -json -exec=WRAPPER PKG`
# once per runtime. seedfall's wrapper is seedfall_wasip1_exec (beside this
# file); wazero runs through Go's own $GOROOT/lib/wasm/go_wasip1_wasm_exec
# with GOWASIRUNTIME=wazero. Both mount the host's / at / and inherit the
# environment. Counts come from the `go test -json` events of tests and
# subtests (events with a Test field): run, pass, fail, skip.
#
# "same?" is yes (identical results and counts), more (seedfall passes tests
# wazero skips or never reaches, and does no test worse: wazero refuses
# absolute symlink targets, so Go's symlink tests skip there) or NO. Exits 1
# if a package that passes under wazero is NO under seedfall (it fails, or a
# test fails, skips or goes missing); 2 on a setup error.
#
# Environment:
#   SEEDFALL_BIN             seedfall binary (default target/release/seedfall,
#                            built with cargo if missing)
#   SEEDFALL_STDLIB=full     run the full list instead of the fast subset
#   SEEDFALL_STDLIB_JOBS     package runs at once (default 2)
#   SEEDFALL_STDLIB_TIMEOUT  real seconds one package run may take (default 900)
#   SEEDFALL_STDLIB_OUT      where the JSON logs go (default target/stdlib)
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WAZERO_VERSION=v1.12.0

# Quick packages, and the three that exercise the file system most (os,
# path/filepath, io/fs): the whole CI run must stay well under 30 minutes,
# so strings and bytes (108 s and 71 s of the two engines' time, wazero the
# slower) are left to the full list.
FAST=(strconv sort unicode/utf8 encoding/hex path errors container/heap hash/crc32
	io/fs path/filepath os)
FULL=(
	strings strconv bytes sort slices maps unicode unicode/utf8 unicode/utf16 iter unique
	encoding/json encoding/binary encoding/base32 encoding/base64 encoding/hex encoding/csv
	encoding/pem encoding/xml encoding/gob math math/big math/bits math/cmplx math/rand
	math/rand/v2 crypto/sha1 crypto/sha256 crypto/sha512 crypto/md5 crypto/hmac crypto/aes
	crypto/cipher hash/adler32 hash/crc32 hash/crc64 hash/fnv compress/flate compress/gzip
	compress/zlib compress/bzip2 compress/lzw regexp regexp/syntax container/heap container/list
	container/ring bufio text/template text/tabwriter text/scanner html html/template fmt errors
	context sync sync/atomic path path/filepath io io/fs io/ioutil os time archive/zip
	archive/tar net/url net/netip mime image/png image/gif image/jpeg testing/fstest embed log
	log/slog flag go/scanner go/parser go/printer debug/elf
)

log() { echo "stdlib: $*" >&2; }

# --one RUNTIME PKG: one `go test` run, called by xargs below.
run_one() {
	local runtime=$1 pkg=$2 out exec
	out="$OUT/$runtime/${pkg//\//_}"
	case "$runtime" in
	seedfall) exec="$HERE/seedfall_wasip1_exec" ;;
	wazero) exec="$(go env GOROOT)/lib/wasm/go_wasip1_wasm_exec" ;;
	esac
	local start=$SECONDS code=0
	GOOS=wasip1 GOARCH=wasm GOWASIRUNTIME=wazero PATH="$OUT/bin:$PATH" \
		timeout -k 10 "$TIMEOUT" go test -json -exec="$exec" "$pkg" >"$out.json" 2>"$out.stderr" || code=$?
	echo "$code $((SECONDS - start))" >"$out.exit"
	log "$runtime $pkg: exit $code in $((SECONDS - start))s"
}

if [[ "${1:-}" == "--one" ]]; then
	OUT=$2 TIMEOUT=$3
	run_one "$4" "$5"
	exit 0
fi

OUT="${SEEDFALL_STDLIB_OUT:-$ROOT/target/stdlib}"
JOBS="${SEEDFALL_STDLIB_JOBS:-2}"
TIMEOUT="${SEEDFALL_STDLIB_TIMEOUT:-900}"
if [[ $# -gt 0 ]]; then
	PKGS=("$@")
elif [[ "${SEEDFALL_STDLIB:-}" == "full" ]]; then
	PKGS=("${FULL[@]}")
else
	PKGS=("${FAST[@]}")
fi

command -v go >/dev/null || { log "the go toolchain is required"; exit 2; }
# The wrapper runs in each package's directory: a relative path would not resolve there.
[[ -n "${SEEDFALL_BIN:-}" ]] && SEEDFALL_BIN="$(realpath "$SEEDFALL_BIN")"
if [[ -z "${SEEDFALL_BIN:-}" ]]; then
	SEEDFALL_BIN="$ROOT/target/release/seedfall"
	if [[ ! -x "$SEEDFALL_BIN" ]]; then
		log "building $SEEDFALL_BIN"
		(cd "$ROOT" && cargo build --release -p seedfall) || exit 2
	fi
fi
export SEEDFALL_BIN
rm -rf "$OUT/seedfall" "$OUT/wazero"
mkdir -p "$OUT/seedfall" "$OUT/wazero" "$OUT/bin"

# wazero, installed once into $OUT/bin where Go's exec script finds it on PATH.
if [[ ! -x "$OUT/bin/wazero" ]] || ! "$OUT/bin/wazero" version 2>/dev/null | grep -q "$WAZERO_VERSION"; then
	log "installing wazero $WAZERO_VERSION"
	GOBIN="$OUT/bin" GOOS= GOARCH= go install "github.com/tetratelabs/wazero/cmd/wazero@$WAZERO_VERSION" || exit 2
fi

log "${#PKGS[@]} packages, $JOBS at a time, seedfall = $SEEDFALL_BIN"
start=$SECONDS
for pkg in "${PKGS[@]}"; do
	printf '%s\0%s\0' seedfall "$pkg"
	printf '%s\0%s\0' wazero "$pkg"
done | xargs -0 -n 2 -P "$JOBS" "$0" --one "$OUT" "$TIMEOUT"
log "all runs took $((SECONDS - start))s"

GOOS= GOARCH= go run "$HERE/summarize.go" "$OUT" "${PKGS[@]}"
