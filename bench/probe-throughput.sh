#!/usr/bin/env bash
# parking-probe's closed-mode throughput and client CPU per request against
# a bare net/http hello server, side by side with bombardier (a Go load
# tester on valyala/fasthttp) and wrk on this machine (BENCHMARKS.md's table):
# the same target, the same 64 connections, the same duration, the probe
# with --actors 1 and with --actors 100, alternating tool by tool within
# each round so drift in the machine's load hits every tool alike. hey and
# the probe's net/http transport join with EXTRA=1.
#
# Usage: bench/probe-throughput.sh [SECONDS_PER_RUN (default 10)] [ROUNDS (default 5)]
#        EXTRA=1 bench/probe-throughput.sh 10 5
#        SHAKECTL=/path/to/shakectl bench/probe-throughput.sh   (a given build)
#        BEFORE=/path/to/older/shakectl bench/probe-throughput.sh (adds that
#        build's probe, before-a1 and before-a100, to the same rounds)
# The last lines are the table rows BENCHMARKS.md records: the median of
# each round's ratios, and each client's CPU per request (user + system
# over requests, the median of the rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-5}
extra=${EXTRA:-0}
conns=64
. bench/lib.sh

need=(wrk jq bc)
[ "$extra" = 1 ] && need+=(hey)
for tool in "${need[@]}"; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y ${need[*]})" >&2; exit 1; }
done
# bombardier comes from the Go module proxy, pinned, built into the temp dir.
GOBIN="$tmp" GOFLAGS= go install github.com/codesenberg/bombardier@v1.2.6
if [ -n "${SHAKECTL:-}" ]; then cp "$SHAKECTL" "$tmp/shakectl"; else
  # Built as the release is (.goreleaser.yaml).
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/shakectl" .
fi
go build -o "$tmp/hello" ./bench/hello
"$tmp/hello" >"$tmp/hello.out" 2>/dev/null & pids+=($!)
until [ -s "$tmp/hello.out" ]; do sleep 0.05; done
url=$(head -1 "$tmp/hello.out")/
wait_http "$url"

# cpu NAME CMD...: runs CMD and writes its CPU seconds (user + system, the
# kernel's accounting of the process, as /proc has it) to $tmp/cpu.NAME: the
# client's CPU per request is steadier than its rate when the machine is
# shared, since it does not depend on how much CPU the server got. A
# tool's own exit status is not this script's verdict: parking-probe exits
# 3 against the bare hello server (nothing identifies it as a router), and
# its CPU and counts are still what is measured here. GNU time writes
# "Command exited with non-zero status N" before the times when a tool
# fails: the times are its last line.
cpu() { local name=$1; shift; /usr/bin/time -o "$tmp/time.$name" -f "%U %S" "$@" || true; awk 'END {print $1 + $2}' "$tmp/time.$name" >"$tmp/cpu.$name"; }
# Each prints "REQUESTS_PER_SECOND REQUESTS".
probe_rps() { # NAME ACTORS [FLAGS...]: the probe's own choice of sender (wire for http://) unless FLAGS say --transport
  local bin=$tmp/shakectl
  case $1 in before-*) bin=$tmp/shakectl-before ;; esac
  cpu "$1" "$bin" parking-probe --target "$url" --mode closed --concurrency "$conns" --duration "${secs}s" \
    --actors "$2" --shed-max 1h -o json --out "$tmp/probe-last.json" "${@:3}" >/dev/null 2>&1
  jq -r '"\(.requests / .duration_seconds | floor) \(.requests)"' "$tmp/probe-last.json"
  local served sent
  read -r served sent < <(jq -r '"\(.outcomes.served.count) \(.requests)"' "$tmp/probe-last.json")
  [ "$served" = "$sent" ] || echo "WARNING: $1: only $served of $sent served" >&2
}
wrk_rps() { cpu wrk wrk -t2 -c"$conns" -d"${secs}s" "$url" >"$tmp/wrk.out"; awk '/^Requests\/sec/ {r=int($2)} /requests in/ {n=$1} END {print r, n}' "$tmp/wrk.out"; }
bombardier_rps() { cpu bombardier "$tmp/bombardier" -c "$conns" -d "${secs}s" -p r -o json "$url" >"$tmp/b.json"
  jq -r '"\(.result.rps.mean | floor) \(.result.req1xx+.result.req2xx+.result.req3xx+.result.req4xx+.result.req5xx+.result.others)"' "$tmp/b.json"; }
hey_rps() { cpu hey hey -z "${secs}s" -c "$conns" "$url" >"$tmp/hey.out"; awk '/Requests\/sec/ {r=int($2)} /\[200\]/ {n=$2} END {print r, n}' "$tmp/hey.out"; }

tools=(probe-a1 probe-a100 bombardier wrk)
[ "$extra" = 1 ] && tools+=(probe-nethttp hey)
if [ -n "${BEFORE:-}" ]; then cp "$BEFORE" "$tmp/shakectl-before"; tools+=(before-a1 before-a100); fi
run() {
  case $1 in
  probe-a1) probe_rps "$1" 1 ;;
  probe-a100 | before-a100) probe_rps "$1" 100 ;;
  before-a1) probe_rps "$1" 1 ;;
  probe-nethttp) probe_rps "$1" 1 --transport net/http ;;
  *) "${1}_rps" ;;
  esac
}

echo "# $conns connections, ${secs}s per run, $rounds round(s), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# probe: ${SHAKECTL:-built from $(git rev-parse --short HEAD)$(git diff --quiet || echo +changes)}${BEFORE:+, before: $BEFORE}"
printf '%-6s' round; for t in "${tools[@]}"; do printf ' %14s' "$t"; done; echo "   (req/s, client CPU µs/request)"
for r in $(seq 1 "$rounds"); do
  printf '%-6s' "$r"
  for t in "${tools[@]}"; do
    read -r rps n < <(run "$t")
    us=$(echo "scale=1; $(cat "$tmp/cpu.$t") * 1000000 / $n" | bc)
    echo "$r $t $rps $us" >>"$tmp/rows"
    printf ' %7s %6s' "$rps" "$us"
  done
  echo
done
# The median of each round's ratio (the runs of one round followed one
# another, so drift between rounds cancels out of it), and of each
# client's CPU per request.
fmed() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { # A B: median over rounds of A's req/s over B's
  awk -v a="$1" -v b="$2" '$2==a {x[$1]=$3} $2==b {y[$1]=$3} END {for (r in x) if (y[r] > 0) printf "%.2f\n", x[r]/y[r]}' "$tmp/rows" | fmed
}
cpu_med() { awk -v t="$1" '$2==t {print $4}' "$tmp/rows" | fmed; }
rps_med() { awk -v t="$1" '$2==t {print $3}' "$tmp/rows" | fmed; }
echo "# medians over $rounds rounds"
printf '%-14s %10s %14s %16s %12s %12s\n' client "req/s" "CPU µs/req" "CPU/bombardier" "÷ bombardier" "÷ wrk"
for t in "${tools[@]}"; do
  c=$(cpu_med "$t")
  printf '%-14s %10s %14s %16s %12s %12s\n' "$t" "$(rps_med "$t")" "$c" \
    "$(echo "scale=2; $c / $(cpu_med bombardier)" | bc)" "$(ratio "$t" bombardier)" "$(ratio "$t" wrk)"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
