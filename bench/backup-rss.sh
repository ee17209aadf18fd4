#!/bin/sh
# backup-rss.sh [SHAKECTL] [MIB]: peak RSS of `shakectl backup create` of a
# cluster holding one MIB-MiB blob (default 1024), against `sim cluster` on
# loopback. The blob's bytes are zeros (a sparse file): what is measured is
# the client's memory while it streams, hashes and writes them. Everything
# lives in a temporary directory, removed at the end.
set -eu
SHAKECTL=${1:-shakectl}
MIB=${2:-1024}
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
port=$((20000 + $$ % 20000))
"$SHAKECTL" sim cluster --listen "127.0.0.1:$port" --auth-namespace system --auth-key bench >"$dir/sim.log" 2>&1 &
sim=$!
export SHAKENFIST_API_URL="http://127.0.0.1:$port" SHAKENFIST_NAMESPACE=system SHAKENFIST_KEY=bench
i=0
until "$SHAKECTL" instance list >/dev/null 2>&1; do
	i=$((i + 1)); [ "$i" -lt 100 ] || { cat "$dir/sim.log"; exit 1; }
	sleep 0.1
done
truncate -s "${MIB}M" "$dir/big.img"
"$SHAKECTL" artifact upload big "$dir/big.img" --quiet >/dev/null
mkdir "$dir/backup"
/usr/bin/time -v "$SHAKECTL" backup create "$dir/backup" --quiet -o json 2>"$dir/time.txt"
grep -E 'Maximum resident|Elapsed' "$dir/time.txt"
ls -l "$dir/backup/blobs"
