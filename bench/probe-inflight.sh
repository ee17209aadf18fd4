#!/usr/bin/env bash
# 10,000 requests in flight at once: a burst at `shakectl sim router` with a
# parking lot large enough to park them all (one worker, held by a warmed
# actor that never idles out, so every other request parks until its 5 s
# budget runs out). Reports the probe's peak RSS (/usr/bin/time), the
# router's own view (parking_active peak, rejections) and the transport
# errors (want 0).
#
# Usage: bench/probe-inflight.sh [REQUESTS (default 10000)]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
lot=$((n + 2000))
. bench/lib.sh

go build -o "$tmp/shakectl" .
# The router and the probe each need a descriptor per connection.
raise_nofile "$((n + 1000))"
"$tmp/shakectl" sim router --quiet --workers 1 --actors 1000 --actor-idle 0 \
  --parked-request-max "$lot" --extproc-max-requests "$lot" \
  --listen 127.0.0.1:18280 --metrics-listen 127.0.0.1:18281 --status-listen 127.0.0.1:18282 >/dev/null & pids+=($!)
wait_http http://127.0.0.1:18282/statusz
# Warm actor-0001 so it holds the only worker.
curl -sf -o /dev/null -H "Host: actor-0001.default.actors.resources.substrate.ate.dev" http://127.0.0.1:18280/

echo "# burst of $n at sim router (lot $lot, 1 worker), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
set +e
/usr/bin/time -f "probe peak RSS %M KiB, %e s wall, %U s user, %S s sys" \
  "$tmp/shakectl" parking-probe --target http://127.0.0.1:18280 --mode burst --requests "$n" --actors 1000 --seed 1 \
  --metrics-url http://127.0.0.1:18281/metrics --statusz-url http://127.0.0.1:18282/statusz \
  --expect transport_error==0 -o json --out "$tmp/inflight.json" 2>"$tmp/time.txt" >/dev/null
code=$?
set -e
cat "$tmp/time.txt"
jq -r '"exit '"$code"': \(.transport) transport, \(.requests) requests, in flight peak \(.in_flight_peak), router parking_active peak \(.metrics.parking_active_peak), rejected +\(.metrics.parking_rejected_delta)",
  (.outcomes | to_entries[] | select(.value.count > 0) | "  \(.key): \(.value.count), p50 \(.value.latency_seconds.p50)s, max \(.value.latency_seconds.max)s \(.value.details // "")"),
  (.checks[] | "  \(.status) \(.name): \(.detail)")' "$tmp/inflight.json"
