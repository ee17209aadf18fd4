#!/usr/bin/env bash
# The test suite's wall time, as BENCHMARKS.md's "The
# test suite" reports it: in a clean clone of the repository's HEAD, the
# test binaries are compiled once, then timed: the build floor (`go test
# -count=1 -run '^$' ./...`: link and vet every test binary, run no test),
# `go test -count=1 ./...` twice on the machine as it is, then twice more
# beside four shell busy loops (started 60 s before, stopped after; this
# script's own children, killed by their PIDs). -count=1 so that no result
# comes from the test cache. Each line gives the 1-minute load average
# before and after, the wall time and the exit status; each run's output
# is kept in the clone's directory for its package times.
#
# Usage: bench/suite-time.sh [QUIET_RUNS (default 2)] [LOADED_RUNS (default 2)]
set -euo pipefail
quiet=${1:-2}
loaded=${2:-2}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
dir=$(mktemp -d)
git clone -q "$repo" "$dir/clone"
cd "$dir/clone"
commit=$(git rev-parse --short HEAD)
load() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
go test -count=1 -run XXX_NONE ./... >/dev/null 2>&1 || true # compile first
t0=$(now)
go test -count=1 -run '^$' ./... >/dev/null 2>&1 || true
echo "build-floor $commit wall $(echo "$(now) - $t0" | bc | xargs printf '%.1f')s"
run() {
  local label=$1 before t0 rc=0
  before=$(load)
  t0=$(now)
  go test -count=1 ./... >"$dir/$label.out" 2>&1 || rc=$?
  printf '%s %s load %s -> %s wall %.1fs exit %d\n' "$label" "$commit" "$before" "$(load)" "$(echo "$(now) - $t0" | bc)" "$rc"
}
for i in $(seq 1 "$quiet"); do run "quiet$i"; done
if ((loaded > 0)); then
  pids=()
  for _ in 1 2 3 4; do
    (while :; do :; done) &
    pids+=($!)
  done
  trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
  sleep 60
  for i in $(seq 1 "$loaded"); do run "loaded$i"; done
fi
echo "outputs in $dir"
