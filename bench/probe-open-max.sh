#!/usr/bin/env bash
# The highest open-mode rate each tool holds against a bare net/http hello
# server on loopback, climbing a ladder of rates until the tool first fails:
#   - parking-probe holds a rate when its send lateness p99 (how late sends
#     left against their schedule, measured by the probe itself) is <= 2 ms
#     and its achieved rate is within 1 % of the asked one;
#   - vegeta (github.com/tsenart/vegeta, the reference open-model Go load
#     tester) holds a rate when its achieved rate (`vegeta report` .rate) is
#     within 1 % of the asked one (vegeta reports no lateness of its own).
# Rungs alternate tool by tool, so drift in the machine's load hits both.
# Every run waits until the sockets earlier runs left in TIME_WAIT are
# to the server's port are gone (wait_timewait in lib.sh), so no run is
# failed by another's ports.
# A tool holds a rung when TRIES runs (default 3) pass by a majority: on two
# shared cores one noisy second otherwise ends a ladder, for either tool.
#
# Usage: bench/probe-open-max.sh [SECONDS_PER_RUNG (default 5)] [RATES...]
#        TRIES=1 bench/probe-open-max.sh …   (one run per rung, as before)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
shift || true
rates=("$@")
# Rungs 2,000/s apart all the way: with 4,000/s steps above 16,000 a tool
# that held 22,000 was recorded as 20,000, and the ratio moved by a rung.
[ ${#rates[@]} -gt 0 ] || rates=($(seq 4000 2000 36000))
port=18273
tries=${TRIES:-3}
. bench/lib.sh
for tool in jq bc; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y jq bc)" >&2; exit 1; }
done

go build -o "$tmp/shakectl" .
go build -o "$tmp/hello" ./bench/hello
GOBIN="$tmp" GOFLAGS= go install github.com/tsenart/vegeta/v12@v12.13.0
raise_nofile 65536
"$tmp/hello" -listen "127.0.0.1:$port" >/dev/null 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/"
url="http://127.0.0.1:$port/"

within() { # within ACHIEVED ASKED PERCENT -> exit 0 when |a-r|/r <= p/100
  [ "$(echo "a=$1-$2; if (a<0) a=-a; a*100 <= $3*$2" | bc)" = 1 ]
}
probe_rung() { # prints "achieved p99_us ok|FAIL"
  wait_timewait "$port"
  "$tmp/shakectl" parking-probe --target "$url" --mode open --rate "$1" --duration "${secs}s" \
    --actors 10 --shed-max 1h -o json --out "$tmp/p.json" >/dev/null 2>"$tmp/p.err" || true
  local a p99
  a=$(jq -r '.achieved_rate | round' "$tmp/p.json")
  p99=$(jq -r '.send_lateness_seconds.p99 * 1e6 | round' "$tmp/p.json")
  if within "$a" "$1" 1 && [ "$p99" -le 2000 ]; then echo "$a ${p99}µs ok"; else echo "$a ${p99}µs FAIL"; fi
}
vegeta_rung() { # prints "achieved ok|FAIL"
  wait_timewait "$port"
  echo "GET $url" | "$tmp/vegeta" attack -rate="$1/s" -duration="${secs}s" >"$tmp/v.bin"
  local a
  a=$("$tmp/vegeta" report -type=json <"$tmp/v.bin" | jq -r '.rate | round')
  if within "$a" "$1" 1; then echo "$a ok"; else echo "$a FAIL"; fi
}

# majority TOOL RATE: runs TOOL_rung up to $tries times, stopping once the
# majority is decided; prints each try's result and "held" or "FAIL".
majority() {
  local need=$((tries / 2 + 1)) ok=0 bad=0 out=() res
  while [ $ok -lt $need ] && [ $bad -lt $need ]; do
    res=$("$1_rung" "$2")
    out+=("${res% *}")
    case $res in *ok) ok=$((ok + 1)) ;; *) bad=$((bad + 1)) ;; esac
  done
  local joined; joined=$(IFS=,; echo "${out[*]}")
  if [ $ok -ge $need ]; then echo "$joined held"; else echo "$joined FAIL"; fi
}

echo "# open mode ladder, ${secs}s per run, majority of $tries runs per rung, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-44s %-30s\n' rate "probe (achieved lat-p99, …)" "vegeta (achieved, …)"
probe_best=0 vegeta_best=0 probe_done=0 vegeta_done=0
for r in "${rates[@]}"; do
  pcol=- vcol=-
  if [ $probe_done = 0 ]; then
    pcol=$(majority probe "$r")
    case $pcol in *held) probe_best=$r ;; *) probe_done=1 ;; esac
  fi
  if [ $vegeta_done = 0 ]; then
    vcol=$(majority vegeta "$r")
    case $vcol in *held) vegeta_best=$r ;; *) vegeta_done=1 ;; esac
  fi
  printf '%-8s %-44s %-30s\n' "$r" "$pcol" "$vcol"
  [ $probe_done = 1 ] && [ $vegeta_done = 1 ] && break
done
echo "highest rate held: probe $probe_best/s, vegeta $vegeta_best/s, ratio $( [ "$vegeta_best" -gt 0 ] && echo "scale=2; $probe_best/$vegeta_best" | bc || echo n/a)"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
