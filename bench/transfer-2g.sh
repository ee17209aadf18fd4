#!/usr/bin/env bash
# The transfer memory bound: `shakectl artifact upload` and `artifact
# download` of a 2 GiB file through `sim cluster` on loopback, each run
# under /usr/bin/time -v for its peak RSS (maximum resident set size),
# which must stay under 64 MiB whatever the file's size.
#
# The file is sparse (truncate -s), so it costs no disk itself; the
# simulator's spool (the upload, then the blob) and the downloaded copy do,
# about 4 GiB, all under one temporary directory ($TMPDIR points there, so
# the simulator spools there too) removed on exit with the simulator.
#
# Usage: bench/transfer-2g.sh [SIZE]   (SIZE for truncate -s, default 2G)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
size="${1:-2G}"
limit_kib=$((64 * 1024))
export TMPDIR="$tmp"

CGO_ENABLED=0 go build -trimpath -o "$tmp/shakectl" .
"$tmp/shakectl" sim cluster --listen 127.0.0.1:0 >"$tmp/sim.out" 2>&1 & pids+=($!)
url=""
for _ in $(seq 50); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/sim.out" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "sim cluster did not start:" >&2; cat "$tmp/sim.out" >&2; exit 1; }
wait_http "$url/"
export SHAKENFIST_API_URL="$url" SHAKENFIST_NAMESPACE=system SHAKENFIST_KEY=demo
# No user configuration may change what is measured.
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config"
mkdir -p "$HOME"

truncate -s "$size" "$tmp/src.img"
bytes=$(stat -c %s "$tmp/src.img")

# measure NAME CMD...: wall seconds and peak RSS (KiB) of one shakectl run.
fail=0
measure() {
  local name="$1"; shift
  local start end rss
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
    echo "$name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/$name.time")
  awk -v n="$name" -v b="$bytes" -v s="$start" -v e="$end" -v r="$rss" -v l="$limit_kib" 'BEGIN {
    t = e - s; printf "%-9s %6.1f s  %6.1f MiB/s  peak RSS %5.1f MiB  %s\n", n, t, b / 1048576 / t, r / 1024, (r < l ? "under 64 MiB" : "OVER 64 MiB") }'
  [ "$rss" -lt "$limit_kib" ] || fail=1
}

echo "file $size ($bytes bytes, sparse), sim cluster at $url, load $(cut -d' ' -f1 /proc/loadavg)"
measure upload "$tmp/shakectl" artifact upload big "$tmp/src.img" --quiet
measure download "$tmp/shakectl" artifact download big "$tmp/back.img" --quiet
[ "$(stat -c %s "$tmp/back.img")" = "$bytes" ] || { echo "the download is not $bytes bytes" >&2; exit 1; }
# Both sides verified the server's sha512; cmp checks the bytes once more.
cmp "$tmp/src.img" "$tmp/back.img" || { echo "the download differs from the upload" >&2; exit 1; }
echo "download identical to the file (cmp)"
exit "$fail"
