#!/usr/bin/env bash
# Regenerates kvpb/kv.pb.go and kvpb/kv_grpc.pb.go from kvpb/kv.proto.
# Needs protoc (here from PyPI: python3 -m pip install grpcio-tools) and the
# two Go plugins at the versions the committed code was made with:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$(go env GOPATH)/bin:${GOBIN:+$GOBIN:}$PATH"
if command -v protoc >/dev/null; then
  protoc=(protoc)
else
  protoc=(python3 -m grpc_tools.protoc)
fi
"${protoc[@]}" -I kvpb \
  --go_out=kvpb --go_opt=paths=source_relative \
  --go-grpc_out=kvpb --go-grpc_opt=paths=source_relative \
  kvpb/kv.proto
