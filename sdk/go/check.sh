#!/bin/sh
# Checks the Go SDK (seedfall.dev/sdk): gofmt; vet and tests natively (the
# tests include a wasip1 vet/build and a check of the seedfall imports against
# docs/sdk-abi.md); vet and build for GOOS=wasip1 GOARCH=wasm.
#
#   sdk/go/check.sh              # the above
#   sdk/go/check.sh --all-goos   # and vet for other platforms (slower: builds std for each)
set -eu
cd "$(dirname "$0")"

unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "sdk/go: not gofmt-ed:" $unformatted >&2
	exit 1
fi
go vet ./...
go test ./...
GOOS=wasip1 GOARCH=wasm go vet ./...
GOOS=wasip1 GOARCH=wasm go build ./...
if [ "${1:-}" = "--all-goos" ]; then
	for t in windows/amd64 darwin/arm64 freebsd/amd64 linux/386 js/wasm plan9/amd64; do
		echo "vet $t"
		GOOS=${t%/*} GOARCH=${t#*/} go vet ./...
	done
fi
echo "sdk/go: ok"
