#!/usr/bin/env bash
# Cold start of `seedfall exec` on `go test -c net/http` (21 MB of wasm) in
# three cache states: a compile (empty local cache, no remote), a remote hit
# (empty local cache, the entry on an nginx WebDAV server on this machine,
# authenticated with SEEDFALL_CACHE_SECRET) and a local hit; with wasmtime's
# fastest warm path (`Module.deserialize_file`, first in a fresh process) as
# the peer. A benchmark, not a test. See bench/README.md "Remote cache".
#
#   bench/remote_cache.sh [--rounds N]     (default N=5)
#
# Needs nginx (Debian: nginx-core). Raw measurements: target/bench/remote/results.jsonl.
set -euo pipefail

ROUNDS=5
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        *) echo "usage: $0 [--rounds N]" >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/bench/remote"
WASMTIME_VERSION=50.0.1
mkdir -p "$OUT"
command -v nginx >/dev/null || { echo "nginx is needed (apt-get install nginx-core)" >&2; exit 2; }

echo "== building seedfall (release)" >&2
(cd "$ROOT" && cargo build --release -p seedfall >&2)
cp "$ROOT/target/release/seedfall" "$OUT/seedfall"
echo "== building go test -c net/http ($(go version))" >&2
(cd "$ROOT/bench/go" && GOOS=wasip1 GOARCH=wasm go test -c -o "$OUT/nethttp.wasm" net/http)

PY="$ROOT/target/bench/venv/bin/python"
if ! "$PY" -c "import wasmtime" 2>/dev/null; then
    python3 -m venv "$ROOT/target/bench/venv"
    "$ROOT/target/bench/venv/bin/pip" install --quiet "wasmtime==$WASMTIME_VERSION"
fi
if [ ! "$OUT/nethttp.cwasm" -nt "$OUT/nethttp.wasm" ]; then
    "$PY" "$ROOT/bench/wasmtime_run.py" precompile "$OUT/nethttp.wasm" "$OUT/nethttp.cwasm"
fi

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -rf "$OUT/nginx" && mkdir -p "$OUT/nginx/store"
N="$OUT/nginx"
cat > "$N/nginx.conf" <<CONF
daemon off; master_process off; pid $N/nginx.pid; error_log $N/error.log;
events {}
http {
  access_log off;
  client_body_temp_path $N/body; proxy_temp_path $N/proxy; fastcgi_temp_path $N/fcgi;
  uwsgi_temp_path $N/uwsgi; scgi_temp_path $N/scgi;
  server { listen 127.0.0.1:$PORT; client_max_body_size 0;
           location / { root $N/store; dav_methods PUT; create_full_put_path on; } }
}
CONF
nginx -c "$N/nginx.conf" &
NGINX=$!
trap 'kill $NGINX 2>/dev/null || true' EXIT
sleep 0.5

echo "== machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$PY" "$ROOT/bench/remote_cache.py" --dir "$OUT" --seedfall "$OUT/seedfall" --python "$PY" \
    --url "http://127.0.0.1:$PORT/seedfall" --rounds "$ROUNDS" | tee "$OUT/table.md"
