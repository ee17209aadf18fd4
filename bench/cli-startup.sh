#!/usr/bin/env bash
# Start-up cost of `shakectl version` and `shakectl --help` next to another
# real CLI's: Debian's `gh --version` (GitHub's CLI, also a Go program),
# timed in the same run. Median wall time (hyperfine), CPU time and page
# faults (perf stat, when it works here) and peak RSS (/usr/bin/time -v).
#
# shakectl is built the way .goreleaser.yaml builds the release
# (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"): a default `go build` links
# the cgo resolver dynamically and measures a binary nobody ships. An empty
# Go program (bench/startupfloor/hello) is timed too, only to show what an
# exec costs on this machine that day; it is no target. The ratio against
# it (and against programs that merely link libraries) was retired: it
# made saving a millisecond of linking the architecture. What a user
# notices is how shakectl compares with the CLIs next to it.
#
# The ratio (`shakectl version` over `gh --version`) comes last, from
# ROUNDS short rounds that time the two back to back: the machine's exec
# cost swings between minutes on this VM, so one long run of each compares
# different machines. The median of the per-round ratios is the figure.
#
# Usage: bench/cli-startup.sh [RUNS (default 200)] [ROUNDS (default 10)]
#        (needs hyperfine and gh: apt-get install -y hyperfine gh)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
rounds="${2:-10}"
for tool in hyperfine gh python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y hyperfine gh)" >&2; exit 1; }
done
gh=$(command -v gh)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/$1" "$2"; }
build shakectl .
build hello ./bench/startupfloor/hello
ls -l "$work" "$gh" | awk '$5 ~ /^[0-9]+$/ {n=split($9, p, "/"); printf "%-10s %5.1f MB\n", p[n], $5 / 1e6}'
echo "gh: $("$gh" --version | head -1)"

cmds=("$work/hello" "$work/shakectl version" "$work/shakectl --help" "$gh --version")

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/h.json" "${cmds[@]}" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    print(f'{r["command"].split("/")[-1]:18s} median {r["median"]*1e3:6.1f} ms  min {t[0]*1e3:6.1f} ms  '
          f'p90 {t[int(len(t)*0.9)]*1e3:6.1f} ms  user {r["user"]*1e3:5.1f} ms  sys {r["system"]*1e3:5.1f} ms')
PY

for cmd in "${cmds[@]}"; do
  rss=$(/usr/bin/time -v $cmd 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
  printf '%-18s peak RSS %s KiB\n' "$(basename "$cmd")" "$rss"
done

# perf is installed here but may not be allowed to count in this VM; then
# it prints nothing useful and the line is left out.
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  for cmd in "${cmds[@]}"; do
    perf stat -r 50 $cmd 2>&1 >/dev/null | awk -v c="$(basename "$cmd")" \
      '/task-clock/ {t=$1} /page-faults/ {p=$1} END {printf "%-18s task-clock %6s ms, page faults %s\n", c, t, p}'
  done
fi

echo "== version / gh --version, $rounds rounds of 60 runs each, back to back (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for i in $(seq "$rounds"); do
  hyperfine -N --warmup 5 --runs 60 --export-json "$work/r$i.json" "$gh --version" "$work/shakectl version" >/dev/null
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
ratios = []
for i in range(1, int(sys.argv[2]) + 1):
    gh, ver = (r["median"] * 1e3 for r in json.load(open(f"{sys.argv[1]}/r{i}.json"))["results"])
    ratios.append(ver / gh)
    print(f"round {i:2d}: gh --version {gh:6.2f} ms, shakectl version {ver:5.2f} ms, ratio {ver / gh:4.2f}")
print(f"ratio median {statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f})")
PY
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
