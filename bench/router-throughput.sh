#!/usr/bin/env bash
# Fast-path throughput of `shakectl sim router` against a bare net/http hello
# server, side by side on this machine, with wrk at 64 connections.
#
# The router runs 16 workers for 16 actors that never idle out
# (--actor-idle 0), all warmed before measuring, so every request takes the
# fast path (breaker, Host parse, actor lookup, worker). --service-time 0
# measures the router's own overhead; a second router run keeps the default
# 5 ms service time to show the model's bound (64 conns / 5 ms = 12,800/s).
#
# Usage: bench/router-throughput.sh [SECONDS_PER_RUN (default 10)] [ROUNDS (default 2)]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-2}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/shakectl" .
go build -o "$tmp/hello" ./bench/hello

"$tmp/hello" -listen 127.0.0.1:18171 & pids+=($!)
start_router() { # $1 port base, $2 service time
  "$tmp/shakectl" sim router --quiet --workers 16 --actors 16 --actor-idle 0 --service-time "$2" \
    --listen "127.0.0.1:$1" --metrics-listen "127.0.0.1:$(($1+1))" --status-listen "127.0.0.1:$(($1+2))" >/dev/null & pids+=($!)
}
start_router 18180 0
start_router 18190 5ms
sleep 1
for port in 18180 18190; do
  for i in $(seq 1 16); do
    curl -sf -o /dev/null -H "Host: $(printf 'actor-%04d' "$i").default.actors.resources.substrate.ate.dev" "http://127.0.0.1:$port/"
  done
done

rps() { # wrk's Requests/sec line
  wrk -t2 -c64 -d"${secs}s" --latency "$@" | tee -a "$tmp/wrk.log" | awk '/^Requests\/sec/ {print $2}'
}
echo "# wrk -t2 -c64 -d${secs}s, $rounds round(s), alternating"
printf '%-6s %-14s %-22s %-22s\n' round hello router_service0 router_service5ms
for r in $(seq 1 "$rounds"); do
  h=$(rps http://127.0.0.1:18171/)
  s0=$(rps -s bench/router-actors.lua http://127.0.0.1:18180/)
  s5=$(rps -s bench/router-actors.lua http://127.0.0.1:18190/)
  printf '%-6s %-14s %-22s %-22s\n' "$r" "$h" "$s0 ($(echo "scale=2; $s0/$h" | bc)x)" "$s5 ($(echo "scale=2; $s5/$h" | bc)x)"
done
# Non-2xx answers would mean the fast path was not what was measured.
if grep -q "Non-2xx" "$tmp/wrk.log"; then echo "WARNING: non-2xx answers:"; grep "Non-2xx" "$tmp/wrk.log"; fi
