#!/usr/bin/env bash
# Time from Ctrl-C to exit of an overloaded open run:
# parking-probe --mode open --rate 100000 --duration 3s against
# `shakectl sim router` on loopback, SIGINT about 1 s into the load, the
# time from the signal to the process's exit and its exit status (130
# wanted), ROUNDS times; and the CPU time the probe spent from the signal
# to its exit (user+sys, from /proc/PID/stat before the signal and once it
# is a zombie), which the machine's other load does not stretch as it does
# the wall time. Each probe is this script's own child, signalled and
# waited for by its PID.
#
# Usage: bench/probe-signal.sh [ROUNDS (default 3)] [RATE (default 100000)]
#        SHAKECTL="/path/a /path/b" bench/probe-signal.sh …  (given builds,
#        alternated round by round so the machine's load hits each alike;
#        the first also runs the router)
#        PROBE_ARGS="--plot DIR/p.html" bench/probe-signal.sh …  (more flags)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
rate=${2:-100000}
port=18290
. bench/lib.sh

read -r -a bins <<<"${SHAKECTL:-}"
if [ ${#bins[@]} -eq 0 ]; then
  go build -o "$tmp/shakectl" .
  bins=("$tmp/shakectl")
fi
raise_nofile 65536
"${bins[0]}" sim router --quiet --listen "127.0.0.1:$port" --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0 \
  >/dev/null 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$port/"

echo "# open mode, $rate req/s for 3s, SIGINT after 1s, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
tick_ms=$(( 1000 / $(getconf CLK_TCK) ))
cpu_ticks() { # cpu_ticks PID sets $ticks (user+sys clock ticks) and $state
  local f; read -r -a f <"/proc/$1/stat" 2>/dev/null || return 1
  state=${f[2]} ticks=$(( f[13] + f[14] ))
}
printf '%-6s %-16s %-6s %-16s %-14s %-9s %-10s %-10s\n' round build exit signal_to_exit cpu_after_sig requests canceled interrupted
for r in $(seq 1 "$rounds"); do
  for bin in "${bins[@]}"; do
    wait_timewait "$port"
    "$bin" parking-probe --target "http://127.0.0.1:$port" --mode open --rate "$rate" --duration 3s \
      --seed "$r" -o json ${PROBE_ARGS:-} >"$tmp/r.json" 2>"$tmp/r.err" & probe=$!
    sleep 1
    cpu_ticks "$probe"; c0=$ticks
    t0=$(date +%s%N)
    kill -INT "$probe"
    # Until it is a zombie: its exit time, and its final CPU times.
    c1=$c0
    while [ -r "/proc/$probe/stat" ]; do
      cpu_ticks "$probe" || break
      c1=$ticks
      [ "$state" = Z ] && break
      sleep 0.02
    done
    t1=$(date +%s%N)
    code=0
    wait "$probe" || code=$?
    ms=$(( (t1 - t0) / 1000000 ))
    cpu=$(( (c1 - c0) * tick_ms ))
    jq -r --arg r "$r" --arg b "$(basename "$bin")" --arg code "$code" --arg ms "${ms}ms" --arg cpu "${cpu}ms" \
      '[$r, $b, $code, $ms, $cpu, .requests, (.outcomes.transport_error.details.canceled // 0), .interrupted] | @tsv' "$tmp/r.json" |
      awk -F'\t' '{printf "%-6s %-16s %-6s %-16s %-14s %-9s %-10s %-10s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
