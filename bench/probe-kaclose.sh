#!/usr/bin/env bash
# A sanity run of the wire sender: parking-probe against a server that closes
# every keep-alive connection after one answer without saying Connection:
# close (bench/kaclose). The probe must report 0 transport errors and count
# exactly the requests the server answered, in closed, open and burst mode. A
# few seconds in all; not a load test.
#
# Usage: bench/probe-kaclose.sh [SECONDS_PER_RUN (default 2)]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-2}
command -v jq >/dev/null || { echo "needs jq (apt-get install -y jq)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/shakectl" .
go build -o "$tmp/kaclose" ./bench/kaclose

printf '| mode | load | transport | requests counted | server answered | transport errors | resends |\n|---|---|---|---|---|---|---|\n'
for run in "closed --concurrency 16 --duration ${secs}s" "open --rate 2000 --duration ${secs}s" "burst --requests 2000"; do
  set -- $run
  mode=$1; shift
  rm -f "$tmp/server.out" "$tmp/r.json"
  "$tmp/kaclose" >"$tmp/server.out" 2>/dev/null & pid=$!
  until [ -s "$tmp/server.out" ]; do sleep 0.05; done
  url=$(head -1 "$tmp/server.out")
  "$tmp/shakectl" parking-probe --target "$url" --mode "$mode" "$@" --actors 1 --shed-max 1h -o json --out "$tmp/r.json" >/dev/null 2>"$tmp/probe.err" || true
  kill -TERM "$pid"; wait "$pid" || true
  answered=$(awk '/^answered/ {print $2}' "$tmp/server.out")
  jq -r --arg mode "$mode" --arg load "$*" --arg answered "$answered" \
    '"| \($mode) | \($load) | \(.transport) | \(.requests) | \($answered) | \(.outcomes.transport_error.count // 0) | \(.resends // 0) |"' "$tmp/r.json"
done
