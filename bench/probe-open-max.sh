#!/usr/bin/env bash
# The open-loop yardstick: the highest open-mode rate each load tester
# holds on loopback, judged by the server, not by the tool: tools that
# judge themselves each by their own measure cannot be compared.
# bench/stampserver stamps every request's arrival on its own clock;
# after each run it reports how many requests arrived, the achieved rate,
# the jitter |Δt − 1/R| between consecutive arrivals, and each
# arrival's lateness against the ideal schedule (first arrival + i/R).
# A tool holds rate R for a run when, at the server:
#   - at least 99 % of R × SECONDS requests arrived,
#   - the achieved rate is within 1 % of R, and
#   - the lateness p99 is at most LATE_MAX_US (default 5000 µs),
# the same rule for every tool. (The script used to judge vegeta by its own
# achieved rate and parking-probe by its own send lateness, and reported a
# ratio of two different criteria.)
#
# Tools: parking-probe (this tree), vegeta v12.13.0 (go install), and k6
# when a k6 binary is on PATH. k6 is not installed by this script: its Go
# module (go.k6.io/k6) is AGPL, which this project does not use, and no
# Debian or npm package ships it.
#
# Rungs alternate tool by tool, so drift in the machine's load hits every
# tool alike. A tool holds a rung when TRIES runs (default 3) pass by a
# majority. Every run first waits until the sockets earlier runs left in
# TIME_WAIT are gone (wait_timewait in lib.sh).
#
# Usage: bench/probe-open-max.sh [SECONDS_PER_RUNG (default 5)] [RATES...]
#        TRIES=1 LATE_MAX_US=2000 bench/probe-open-max.sh 3 4000 8000 16000
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
shift || true
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=($(seq 4000 2000 36000))
tries=${TRIES:-3}
late_max=${LATE_MAX_US:-5000}
. bench/lib.sh
for tool in jq bc curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y $tool)" >&2; exit 1; }
done

go build -o "$tmp/shakectl" .
go build -o "$tmp/stampserver" ./bench/stampserver
GOBIN="$tmp" GOFLAGS= go install github.com/tsenart/vegeta/v12@v12.13.0
tools=(probe vegeta)
if command -v k6 >/dev/null; then tools+=(k6); else echo "# k6: not on PATH, not judged (go.k6.io/k6 is AGPL; no Debian or npm package ships it)"; fi
raise_nofile 65536
"$tmp/stampserver" >"$tmp/server.out" 2>/dev/null & pids+=($!)
until [ -s "$tmp/server.out" ]; do sleep 0.05; done
url=$(head -1 "$tmp/server.out")/
port=${url##*:}; port=${port%/}

within() { # within ACHIEVED ASKED PERCENT -> exit 0 when |a-r|/r <= p/100
  [ "$(echo "a=$1-$2; if (a<0) a=-a; a*100 <= $3*$2" | bc)" = 1 ]
}
send() { # send TOOL RATE: one open-loop run of SECONDS at RATE
  case $1 in
  probe)
    "$tmp/shakectl" parking-probe --target "$url" --mode open --rate "$2" --duration "${secs}s" \
      --actors 10 --shed-max 1h -o json --out "$tmp/p.json" >/dev/null 2>"$tmp/p.err" || true ;;
  vegeta)
    echo "GET $url" | "$tmp/vegeta" attack -rate="$2/s" -duration="${secs}s" >/dev/null ;;
  k6)
    cat >"$tmp/k6.js" <<JS
import http from 'k6/http';
export const options = { scenarios: { open: { executor: 'constant-arrival-rate', rate: $2, timeUnit: '1s',
  duration: '${secs}s', preAllocatedVUs: 2000, maxVUs: 20000 } } };
export default function () { http.get('$url'); }
JS
    k6 run --quiet "$tmp/k6.js" >/dev/null 2>&1 || true ;;
  esac
}
rung() { # rung TOOL RATE: prints "arrived/expected achieved jit-p50 late-p99 ok|FAIL"
  wait_timewait "$port"
  curl -sf -o /dev/null "${url}_stamps/reset"
  send "$1" "$2"
  curl -sf "${url}_stamps/report?rate=$2&secs=$secs" >"$tmp/r.json"
  local arrived expected achieved jit late
  read -r arrived expected achieved jit late < <(jq -r '"\(.arrived) \(.expected) \(.achieved_rate|round) \(.jitter_p50_us|round) \(.lateness_p99_us|round)"' "$tmp/r.json")
  local verdict=FAIL
  if [ "$((arrived * 100))" -ge "$((expected * 99))" ] && within "$achieved" "$2" 1 && [ "$late" -le "$late_max" ]; then verdict=ok; fi
  echo "$arrived/$expected ${achieved}/s j${jit}µs l${late}µs $verdict"
}

# majority TOOL RATE: runs rung up to $tries times, stopping once the
# majority is decided; prints each try's result and "held" or "FAIL".
majority() {
  local need=$((tries / 2 + 1)) ok=0 bad=0 out=() res
  while [ $ok -lt $need ] && [ $bad -lt $need ]; do
    res=$(rung "$1" "$2")
    out+=("${res% *}")
    case $res in *ok) ok=$((ok + 1)) ;; *) bad=$((bad + 1)) ;; esac
  done
  local joined; joined=$(IFS=,; echo "${out[*]}")
  if [ $ok -ge $need ]; then echo "$joined held"; else echo "$joined FAIL"; fi
}

echo "# open-loop yardstick judged at the server: ${secs}s per run, majority of $tries, lateness p99 <= ${late_max}µs, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# each cell: arrived/expected, achieved rate, jitter p50, lateness p99 (per try), then held|FAIL"
declare -A best done
for t in "${tools[@]}"; do best[$t]=0; done
printf '%-7s' rate; for t in "${tools[@]}"; do printf ' | %-60s' "$t"; done; echo
for r in "${rates[@]}"; do
  printf '%-7s' "$r"
  all_done=1
  for t in "${tools[@]}"; do
    col=-
    if [ -z "${done[$t]:-}" ]; then
      col=$(majority "$t" "$r")
      case $col in *held) best[$t]=$r ;; *) done[$t]=1 ;; esac
    fi
    [ -z "${done[$t]:-}" ] && all_done=0
    printf ' | %-60s' "$col"
  done
  echo
  [ $all_done = 1 ] && break
done
printf 'highest rate held:'; for t in "${tools[@]}"; do printf ' %s %s/s' "$t" "${best[$t]}"; done; echo
if [ "${best[vegeta]}" -gt 0 ]; then echo "probe / vegeta: $(echo "scale=2; ${best[probe]}/${best[vegeta]}" | bc)"; fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
