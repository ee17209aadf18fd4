#!/usr/bin/env bash
# Start-up cost of `shakectl version` and `shakectl --help`: median wall
# time (hyperfine), CPU time and page faults (perf stat, when available) and
# peak RSS (/usr/bin/time -v), next to a hello-world Go binary built by the
# same toolchain as the floor this machine allows.
#
# Usage: bench/cli-startup.sh [RUNS]   (needs hyperfine: apt-get install -y hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

go build -o "$work/shakectl" .
mkdir -p "$work/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > "$work/hello/main.go"
printf 'module hello\n\ngo 1.26\n' > "$work/hello/go.mod"
(cd "$work/hello" && go build -o "$work/hello-bin" .)
ls -l "$work/shakectl" "$work/hello-bin" | awk '{print $5, $9}'

echo "== load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/h.json" \
  "$work/hello-bin" "$work/shakectl version" "$work/shakectl --help" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    print(f'{r["command"].split("/")[-1]:22s} median {r["median"]*1e3:6.1f} ms  min {t[0]*1e3:6.1f} ms  '
          f'p90 {t[int(len(t)*0.9)]*1e3:6.1f} ms  user {r["user"]*1e3:5.1f} ms  sys {r["system"]*1e3:5.1f} ms')
PY

for cmd in "$work/hello-bin" "$work/shakectl version" "$work/shakectl --help"; do
  rss=$(/usr/bin/time -v $cmd 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
  echo "$(basename "${cmd%% *}") ${cmd#* }: peak RSS ${rss} KiB"
done

if command -v perf >/dev/null; then
  for cmd in "$work/hello-bin" "$work/shakectl version"; do
    perf stat -r 50 $cmd 2>&1 >/dev/null | awk -v c="$(basename "${cmd%% *}") ${cmd#* }" \
      '/task-clock/ {t=$1} /page-faults/ {p=$1} END {print c ": task-clock " t " ms, page faults " p}'
  done
fi
