#!/usr/bin/env bash
# Sharding's cost: one burst sent by 1 probe process, then by 4 local shard
# processes of the same command line (--shards 4 --shard I, one --start-at),
# both against `shakectl sim router` on loopback. The shards' reports are
# printed to one log stream with other lines, as kubectl logs gives them,
# and merged with `parking-probe merge -`. Checks the merged accounting is
# exact (requests and every outcome = the sum of the shards = the burst)
# and reports each run's wall time and the spread of the shards' starts.
#
# Usage: bench/probe-shards.sh [REQUESTS (default 4000)] [ROUNDS (default 3)]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000}
rounds=${2:-3}
shards=4
. bench/lib.sh

go build -o "$tmp/shakectl" .
ulimit -n "$((n * 2 + 1000))" 2>/dev/null || true
# Every actor has a worker and the lot holds the whole burst: the figure is
# the probes', not the router's queueing.
"$tmp/shakectl" sim router --quiet --workers 1000 --actors 1000 --actor-idle 0 \
  --parked-request-max "$((n + 1000))" --extproc-max-requests "$((n + 1000))" \
  --listen 127.0.0.1:18380 --metrics-listen 127.0.0.1:18381 --status-listen 127.0.0.1:18382 >/dev/null & pids+=($!)
wait_http http://127.0.0.1:18382/statusz

probe=("$tmp/shakectl" parking-probe --target http://127.0.0.1:18380 --mode burst --requests "$n" --actors 1000
  --seed 1 --metrics-url http://127.0.0.1:18381/metrics --expect transport_error==0 -o json)
now_ms() { date +%s%3N; }

echo "# burst of $n, 1 process vs $shards shards, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  t0=$(now_ms)
  "${probe[@]}" > "$tmp/one.json" 2>/dev/null || true
  t1=$(now_ms)
  one_wall=$(( t1 - t0 ))
  one=$(jq -r '"\(.requests) requests, \(.duration_seconds * 1000 | floor) ms load"' "$tmp/one.json")

  # A start 2 s away leaves the shards time to start and pre-dial.
  at=$(date -u -d "@$(( $(date +%s) + 2 ))" +%Y-%m-%dT%H:%M:%SZ)
  spids=()
  for i in $(seq 0 $((shards - 1))); do
    "${probe[@]}" --shards "$shards" --shard "$i" --start-at "$at" > "$tmp/shard-$i.json" 2>"$tmp/shard-$i.err" & spids+=($!)
  done
  for p in "${spids[@]}"; do wait "$p" || true; done
  t1=$(now_ms)
  start_ms=$(( $(date -d "$at" +%s) * 1000 ))
  shards_wall=$(( t1 - start_ms ))
  # One log stream: prefixed lines, a pod's stderr, other JSON.
  for i in $(seq 0 $((shards - 1))); do
    sed "s|^|[pod/probe-$i-bench/probe] |" "$tmp/shard-$i.err" "$tmp/shard-$i.json"
    echo "{\"level\":\"info\",\"msg\":\"sidecar line $i\"}"
  done > "$tmp/stream.log"
  "$tmp/shakectl" parking-probe merge - -o json < "$tmp/stream.log" > "$tmp/merged.json" || true
  sums=$(jq -s '[.[] | .outcomes | to_entries[] | {k: .key, c: .value.count}] | group_by(.k) | map({(.[0].k): (map(.c) | add)}) | add' "$tmp"/shard-*.json)
  exact=$(jq --argjson sums "$sums" --argjson n "$n" \
    '(.requests == $n) and (.load.requests == $n) and ([.outcomes | to_entries[] | .value.count == $sums[.key]] | all)' "$tmp/merged.json")
  jq -r --arg one "$one" --arg ow "$one_wall" --arg sw "$shards_wall" --arg exact "$exact" \
    '"round '"$round"': 1 process: \($one), \($ow) ms wall | \(.shards) shards: \(.requests) requests merged, exact \($exact), \(.duration_seconds * 1000 | floor) ms load, \($sw) ms from --start-at to the last exit, start spread \(.start_spread_seconds * 1000 | . * 10 | floor / 10) ms, worst start lateness \(.start_lateness_seconds * 1000 | . * 10 | floor / 10) ms, failed checks: \([.checks[] | select(.status == "failed") | .name] | join(",") | if . == "" then "none" else . end)"' \
    "$tmp/merged.json"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
