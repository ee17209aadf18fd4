#!/usr/bin/env bash
# Every side-by-side figure of the probe's cost per request and start-up,
# one after another, for a quiet machine; each part prints its own table
# rows (BENCHMARKS.md, "the probe's cost per request and start-up").
#   1. client instructions per request (callgrind): probe --actors 1 and
#      100, bombardier, wrk                      bench/probe-instructions.sh
#   2. closed loop, 64 connections, alternating rounds: req/s ratios and
#      client CPU per request, the same four   bench/probe-throughput.sh
#   3. `shakectl version` against `gh --version` (hyperfine), rounds back
#      to back                                   bench/cli-startup.sh
#   4. open loop judged by the server's clock (bench/stampserver), the
#      probe against vegeta                      bench/probe-open-max.sh
#
# Usage: bench/probe-cost.sh [QUICK]   (QUICK=1: shorter runs, for a first look)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-0}" = 1 ]; then
  bench/probe-instructions.sh 2 6
  bench/probe-throughput.sh 5 3
  bench/cli-startup.sh 50 5
  TRIES=1 bench/probe-open-max.sh 3 8000 16000 24000 32000 48000
else
  bench/probe-instructions.sh 3 9
  bench/probe-throughput.sh 10 5
  bench/cli-startup.sh 200 10
  bench/probe-open-max.sh 5 8000 16000 24000 32000 40000 48000 56000
fi
