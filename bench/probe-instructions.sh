#!/usr/bin/env bash
# Client instructions per request, closed loop, 64 connections, against
# the same fast local server (bench/hello): parking-probe (with --actors 1
# and --actors 100), bombardier and wrk, each under valgrind's callgrind,
# which counts the instructions the client itself executed. Unlike req/s or
# CPU time, the count hardly depends on the machine's load (the machine
# was shared by five engineers while the probe's per-request path was
# trimmed), so it is the figure to compare changes with; the wall-clock
# side by side (bench/probe-throughput.sh) is for a quiet machine.
#
# Each client runs twice, SHORT and LONG seconds (bombardier: a request
# count SHORT*2000 and LONG*2000); instructions per request is the
# difference of the two runs' counts over the difference of their
# requests, so start-up, the report and the exit cancel out. callgrind runs
# the client on one thread, about 50 times slower, so requests are fewer
# than on the bare machine, and the scheduler's spinning is not counted as
# it would run on two cores. Go clients run with GODEBUG=asyncpreemptoff=1
# (callgrind does not survive the runtime's preemption signals).
#
# Usage: bench/probe-instructions.sh [SHORT (default 2)] [LONG (default 6)] [SHAKECTL_BINARY...]
#        (needs valgrind wrk jq bc: apt-get install -y valgrind wrk jq bc)
# With binaries given, each is measured instead of one built from this tree
# (the same flags as the release), labelled by its file name.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-2}
long=${2:-6}
shift 2 || shift $# || true
conns=64
. bench/lib.sh
for tool in valgrind wrk jq bc; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y valgrind wrk jq bc)" >&2; exit 1; }
done
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/shakectl" .
  bins=("$tmp/shakectl")
fi
GOBIN="$tmp" GOFLAGS= go install github.com/codesenberg/bombardier@v1.2.6
go build -o "$tmp/hello" ./bench/hello
"$tmp/hello" >"$tmp/hello.out" 2>/dev/null & pids+=($!)
until [ -s "$tmp/hello.out" ]; do sleep 0.05; done
url=$(head -1 "$tmp/hello.out")/
wait_http "$url"

# counted OUT CMD...: runs CMD under callgrind; the instruction count goes
# to $tmp/ir.OUT, CMD's stdout to $tmp/out.OUT.
counted() {
  local out=$1; shift
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >"$tmp/out.$out" 2>"$tmp/vg.$out" || true
  awk '/Collected :/ {print $NF}' "$tmp/vg.$out" >"$tmp/ir.$out"
}
probe_run() { # BIN ACTORS SECS -> requests
  counted p "$1" parking-probe --target "$url" --mode closed --concurrency "$conns" --duration "${3}s" \
    --actors "$2" --shed-max 1h -o json --out "$tmp/p.json"
  jq -r .requests "$tmp/p.json"
}
bombardier_run() { counted b "$tmp/bombardier" -c "$conns" -n "$(($1 * 2000))" -p r -o json "$url"; jq -r '.result.req1xx+.result.req2xx+.result.req3xx+.result.req4xx+.result.req5xx+.result.others' "$tmp/out.b"; }
wrk_run() { counted w wrk -t2 -c"$conns" -d"${1}s" "$url"; awk '/requests in/ {print $1}' "$tmp/out.w"; }
per_request() { # NAME RUN ARGS... (the run's last argument is its length)
  local name=$1 run=$2; shift 2
  local n1 n2 i1 i2
  n1=$("$run" "$@" "$short"); i1=$(cat "$tmp/ir.${run:0:1}")
  n2=$("$run" "$@" "$long"); i2=$(cat "$tmp/ir.${run:0:1}")
  printf '%-28s %9s %9s %14s %14s %10s\n' "$name" "$n1" "$n2" "$i1" "$i2" "$(echo "($i2 - $i1) / ($n2 - $n1)" | bc)"
}
echo "# client instructions per request (callgrind), closed loop, $conns connections, runs of ${short} and ${long}; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %9s %9s %14s %14s %10s\n' client "req short" "req long" "Ir short" "Ir long" "Ir/req"
for b in "${bins[@]}"; do
  for a in 1 100; do per_request "$(basename "$b") --actors $a" probe_run "$b" "$a"; done
done
per_request bombardier bombardier_run
per_request "wrk -t2" wrk_run
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
