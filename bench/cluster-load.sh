#!/usr/bin/env bash
# Drive `shakectl sim cluster` with concurrent creates and deletes on
# loopback and check it never over-commits, loses an instance or leaves a
# request unanswered. Extra arguments go to bench/clusterload, e.g.
#
#   bench/cluster-load.sh -clients 20 -workers 200 -duration 30s
#
# The simulator runs as its own process (the real command), shaped so the
# cluster keeps filling and draining: 4 hypervisors of 16 vCPUs, a 1 s
# teardown lag, 100 ms create time, error records cleaned after 1 s.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
sim_pid=
cleanup() {
	if [[ -n "$sim_pid" ]] && kill -0 "$sim_pid" 2>/dev/null; then
		kill -INT "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/shakectl" .
go build -o "$tmp/clusterload" ./bench/clusterload

"$tmp/shakectl" sim cluster --quiet --listen 127.0.0.1:0 \
	--nodes 4 --node-cpus 16 --node-memory 65536 --node-disk 2000 \
	--teardown-lag 1s --create-time 100ms --error-cleanup 1s \
	>"$tmp/url" 2>"$tmp/sim.err" &
sim_pid=$!

# The URL is the simulator's first line on stdout.
for _ in $(seq 100); do
	[[ -s "$tmp/url" ]] && break
	kill -0 "$sim_pid" 2>/dev/null || { cat "$tmp/sim.err" >&2; exit 1; }
	sleep 0.1
done
url=$(head -n1 "$tmp/url")
[[ -n "$url" ]] || { echo "the simulator printed no URL" >&2; exit 1; }

status=0
"$tmp/clusterload" -url "$url" -settle 3s "$@" || status=$?

kill -INT "$sim_pid"
sim_status=0
wait "$sim_pid" || sim_status=$?
sim_pid=
if [[ $sim_status -ne 0 ]]; then
	echo "sim cluster exited $sim_status on SIGINT (want 0):" >&2
	cat "$tmp/sim.err" >&2
	status=1
fi
exit $status
