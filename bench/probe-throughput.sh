#!/usr/bin/env bash
# parking-probe's closed-mode throughput against a bare net/http hello
# server, side by side with hey, wrk and bombardier (a Go load tester on
# valyala/fasthttp) on this machine: the same target, the same 64
# connections, the same duration, alternating tool by tool so drift in the
# machine's load hits all four alike.
#
# Usage: bench/probe-throughput.sh [SECONDS_PER_RUN (default 10)] [ROUNDS (default 3)]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
conns=64
port=18271
. bench/lib.sh

for tool in hey wrk jq bc; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y hey wrk jq bc)" >&2; exit 1; }
done
# bombardier comes from the Go module proxy, pinned, built into the temp dir.
GOBIN="$tmp" GOFLAGS= go install github.com/codesenberg/bombardier@v1.2.6
go build -o "$tmp/shakectl" .
go build -o "$tmp/hello" ./bench/hello
"$tmp/hello" -listen "127.0.0.1:$port" >/dev/null 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/"
url="http://127.0.0.1:$port/"

# cpu NAME CMD...: runs CMD and writes its CPU seconds (user + system) to
# $tmp/cpu.NAME: the client's CPU per request is steadier than its rate when the
# machine is shared, since it does not depend on how much CPU the server got.
# A tool's own exit status is not this script's verdict: parking-probe exits
# 3 against the bare hello server (nothing identifies it as a router), and
# its CPU and counts are still what is measured here.
# GNU time writes "Command exited with non-zero status N" before the times
# when a tool fails: the times are its last line.
cpu() { local name=$1; shift; /usr/bin/time -o "$tmp/time.$name" -f "%U %S" "$@" || true; awk 'END {print $1 + $2}' "$tmp/time.$name" >"$tmp/cpu.$name"; }
probe_rps() { # NAME [FLAGS...]: the probe's own choice (its wire sender for http://) unless FLAGS say --transport
  cpu "${1:-probe}" "$tmp/shakectl" parking-probe --target "$url" --mode closed --concurrency "$conns" --duration "${secs}s" \
    --actors 1 --shed-max 1h -o json --out "$tmp/probe-last.json" "${@:2}" |
    jq -r '"\(.requests / .duration_seconds | floor) \(.outcomes.served.count) \(.requests) \(.transport)"'
}
nethttp_rps() { probe_rps nethttp --transport net/http | awk '{print $1}'; }
hey_rps() { cpu hey hey -z "${secs}s" -c "$conns" "$url" | awk '/Requests\/sec/ {printf "%d\n", $2}'; }
wrk_rps() { cpu wrk wrk -t2 -c"$conns" -d"${secs}s" "$url" | awk '/^Requests\/sec/ {printf "%d\n", $2}'; }
bombardier_rps() { cpu bombardier "$tmp/bombardier" -c "$conns" -d "${secs}s" -p r -o json "$url" | jq -r '.result.rps.mean | floor'; }

echo "# $conns connections, ${secs}s per run, $rounds round(s), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
row() { printf '%-6s %-9s %-9s %-9s %-9s %-11s %-10s %-10s %-10s %-10s\n' "$@"; }
ratio() { echo "scale=2; $1/$2" | bc; }
row round probe net/http hey wrk bombardier probe/hey probe/wrk probe/bomb wire/net
: >"$tmp/rows"; : >"$tmp/cpurows"
for r in $(seq 1 "$rounds"); do
  read -r p served sent transport < <(probe_rps)
  if [ "$served" != "$sent" ]; then echo "WARNING: probe: only $served of $sent served" >&2; fi
  n=$(nethttp_rps)
  h=$(hey_rps)
  w=$(wrk_rps)
  b=$(bombardier_rps)
  echo "$p $h $w $b $n" >>"$tmp/rows"
  # Each client's CPU µs per request (its CPU time over its requests).
  us() { echo "scale=1; $(cat "$tmp/cpu.$1") * 1000000 / ($2 * $secs)" | bc; }
  echo "$(us probe "$p") $(us nethttp "$n") $(us hey "$h") $(us wrk "$w") $(us bombardier "$b")" >>"$tmp/cpurows"
  row "$r" "$p" "$n" "$h" "$w" "$b" "$(ratio "$p" "$h")" "$(ratio "$p" "$w")" "$(ratio "$p" "$b")" "$(ratio "$p" "$n")"
done
# Medians: the machine is shared, so single runs swing.
med() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
mp=$(awk '{print $1}' "$tmp/rows" | med)
mh=$(awk '{print $2}' "$tmp/rows" | med)
mw=$(awk '{print $3}' "$tmp/rows" | med)
mb=$(awk '{print $4}' "$tmp/rows" | med)
mn=$(awk '{print $5}' "$tmp/rows" | med)
row median "$mp" "$mn" "$mh" "$mw" "$mb" "$(ratio "$mp" "$mh")" "$(ratio "$mp" "$mw")" "$(ratio "$mp" "$mb")" "$(ratio "$mp" "$mn")"
# The ratio of each round, whose runs followed one another, then the
# median of those: drift between rounds cancels out of it.
rmed() { awk -v k="$1" '{printf "%.2f\n", $1 / $k}' "$tmp/rows" | fmed; }
fmed() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
row "r-med" "" "" "" "" "" "$(rmed 2)" "$(rmed 3)" "$(rmed 4)" "$(rmed 5)"
echo "# client CPU per request (µs, user + system), median of the rounds:"
printf '%-6s %-9s %-9s %-9s %-9s %-11s\n' "" probe net/http hey wrk bombardier
printf '%-6s %-9s %-9s %-9s %-9s %-11s\n' "µs/req" $(for k in 1 2 3 4 5; do awk -v k="$k" '{print $k}' "$tmp/cpurows" | fmed; done)
echo "# probe transport: $transport"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
