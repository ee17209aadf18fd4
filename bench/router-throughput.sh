#!/usr/bin/env bash
# Fast-path throughput of `shakectl sim router` against a bare net/http hello
# server, side by side on this machine, with wrk at 64 connections.
#
# The router runs 16 workers for 16 actors that never idle out
# (--actor-idle 0), all warmed before measuring, so every request takes the
# fast path (breaker, Host parse, actor lookup, worker). --service-time 0
# measures the router's own overhead; a second router keeps the default 5 ms
# service time to show the model's own bound (64 conns / 5 ms = 12,800/s).
# Every server listens on a free loopback port (no clash with anything else
# running on the machine).
#
# Usage: bench/router-throughput.sh [SECONDS_PER_RUN (default 10)] [ROUNDS (default 3)]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
. bench/lib.sh

go build -o "$tmp/shakectl" .
go build -o "$tmp/hello" ./bench/hello

# first_line FILE: wait (at most 10 s) for a server's first stdout line.
first_line() {
  for _ in $(seq 100); do [ -s "$1" ] && { head -1 "$1" | awk '{print $NF}'; return; }; sleep 0.1; done
  echo "no URL in $1" >&2; exit 1
}
"$tmp/hello" >"$tmp/hello.out" & pids+=($!)
start_router() { # $1 name, $2 service time
  "$tmp/shakectl" sim router --quiet --workers 16 --actors 16 --actor-idle 0 --service-time "$2" \
    --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0 >"$tmp/$1.out" & pids+=($!)
}
start_router r0 0
start_router r5 5ms
hello=$(first_line "$tmp/hello.out")
r0=$(first_line "$tmp/r0.out")
r5=$(first_line "$tmp/r5.out")
for url in "$r0" "$r5"; do
  for i in $(seq 1 16); do
    curl -sf -o /dev/null -H "Host: $(printf 'actor-%04d' "$i").default.actors.resources.substrate.ate.dev" "$url/"
  done
done

rps() { # wrk's Requests/sec figure
  wrk -t2 -c64 -d"${secs}s" --latency "$@" | tee -a "$tmp/wrk.log" | awk '/^Requests\/sec/ {print $2}'
}
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg); wrk -t2 -c64 -d${secs}s, $rounds round(s), alternating"
printf '%-6s %-12s %-24s %-24s\n' round hello router_service0 router_service5ms
for r in $(seq 1 "$rounds"); do
  h=$(rps "$hello/")
  s0=$(rps -s bench/router-actors.lua "$r0/")
  s5=$(rps -s bench/router-actors.lua "$r5/")
  printf '%-6s %-12s %-24s %-24s\n' "$r" "$h" "$s0 ($(echo "scale=2; $s0/$h" | bc)x)" "$s5 ($(echo "scale=2; $s5/$h" | bc)x)"
done
# Non-2xx answers would mean the fast path was not what was measured.
if grep -q "Non-2xx" "$tmp/wrk.log"; then echo "WARNING: non-2xx answers:"; grep "Non-2xx" "$tmp/wrk.log"; fi
