#!/usr/bin/env bash
# Start-up cost of `shakectl version` and `shakectl --help`: median wall
# time (hyperfine), CPU time and page faults (perf stat, when available) and
# peak RSS (/usr/bin/time -v).
#
# Everything is built the way .goreleaser.yaml builds the release
# (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"): a default `go build` links
# the cgo resolver dynamically and measures a binary nobody ships.
#
# Next to shakectl it times the programs of bench/startupfloor, which link
# libraries and do nothing, so the figures split into what the machine
# costs (hello), what linking the required libraries costs (required, api,
# linked) and what shakectl's own work costs (the rest).
#
# Issue 15's ratio (`shakectl version` over `required`) comes last, from
# ROUNDS short rounds that time the two back to back: the floor alone swings
# by a third between minutes on this VM, so one long run of each compares
# different machines. The median of the per-round ratios is the figure.
#
# Usage: bench/cli-startup.sh [RUNS] [ROUNDS]   (needs hyperfine: apt-get install -y hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
rounds="${2:-10}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/$1" "$2"; }
build shakectl .
floors=(hello required api linked)
for f in "${floors[@]}"; do build "$f" "./bench/startupfloor/$f"; done
ls -l "$work" | awk 'NR > 1 {printf "%-10s %5.1f MB\n", $9, $5 / 1e6}'

cmds=()
for f in "${floors[@]}"; do cmds+=("$work/$f"); done
cmds+=("$work/shakectl version" "$work/shakectl --help")

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/h.json" "${cmds[@]}" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    print(f'{r["command"].split("/")[-1]:18s} median {r["median"]*1e3:6.1f} ms  min {t[0]*1e3:6.1f} ms  '
          f'p90 {t[int(len(t)*0.9)]*1e3:6.1f} ms  user {r["user"]*1e3:5.1f} ms  sys {r["system"]*1e3:5.1f} ms')
PY

for cmd in "$work/hello" "$work/shakectl version" "$work/shakectl --help"; do
  rss=$(/usr/bin/time -v $cmd 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
  printf '%-18s peak RSS %s KiB\n' "$(basename "$cmd")" "$rss"
done

if command -v perf >/dev/null; then
  for cmd in "${cmds[@]}"; do
    perf stat -r 50 $cmd 2>&1 >/dev/null | awk -v c="$(basename "$cmd")" \
      '/task-clock/ {t=$1} /page-faults/ {p=$1} END {printf "%-18s task-clock %6s ms, page faults %s\n", c, t, p}'
  done
fi

echo "== version / required, $rounds rounds of 60 runs each, back to back (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for i in $(seq "$rounds"); do
  hyperfine -N --warmup 5 --runs 60 --export-json "$work/r$i.json" "$work/required" "$work/shakectl version" >/dev/null
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
ratios = []
for i in range(1, int(sys.argv[2]) + 1):
    req, ver = (r["median"] * 1e3 for r in json.load(open(f"{sys.argv[1]}/r{i}.json"))["results"])
    ratios.append(ver / req)
    print(f"round {i:2d}: required {req:5.2f} ms, version {ver:5.2f} ms, ratio {ver / req:4.2f}")
print(f"ratio median {statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f})")
PY
