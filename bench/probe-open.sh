#!/usr/bin/env bash
# Open mode on schedule: parking-probe at a fixed rate (default 2,000 req/s
# for 10 s) against a bare net/http hello server on loopback. Reports the
# achieved rate against the target and how late sends left against their
# schedule (the send lateness the probe measures itself).
#
# Usage: bench/probe-open.sh [RATE (default 2000)] [SECONDS (default 10)] [ROUNDS (default 3)]
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-2000}
secs=${2:-10}
rounds=${3:-3}
port=18272
. bench/lib.sh

go build -o "$tmp/shakectl" .
go build -o "$tmp/hello" ./bench/hello
"$tmp/hello" -listen "127.0.0.1:$port" >/dev/null 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/"

echo "# open mode, $rate req/s for ${secs}s, $rounds round(s), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-9s %-12s %-9s %-14s %-14s %-14s %-10s\n' round sent achieved error lateness_p50 lateness_p99 lateness_max served
for r in $(seq 1 "$rounds"); do
  "$tmp/shakectl" parking-probe --target "http://127.0.0.1:$port" --mode open --rate "$rate" --duration "${secs}s" \
    --actors 10 --seed "$r" --shed-max 1h -o json --out "$tmp/open-$r.json" >/dev/null
  jq -r --arg r "$r" --argjson rate "$rate" '[$r, .requests, (.achieved_rate*10|round/10),
      ((.achieved_rate-$rate)/$rate*100*100|round/100|tostring+"%"),
      ((.send_lateness_seconds.p50*1e6|round|tostring)+"µs"), ((.send_lateness_seconds.p99*1e6|round|tostring)+"µs"),
      ((.send_lateness_seconds.max*1e6|round|tostring)+"µs"), .outcomes.served.count] | @tsv' "$tmp/open-$r.json" |
    awk -F'\t' '{printf "%-6s %-9s %-12s %-9s %-14s %-14s %-14s %-10s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
