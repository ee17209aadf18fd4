#!/usr/bin/env bash
# Run every fuzz target in the module for a while (default 60s each).
#
#   scripts/fuzz.sh            # all targets, 60s each
#   FUZZTIME=10s scripts/fuzz.sh ./probe/   # one package, 10s each
#
# Not part of CI: `go test ./...` already runs each target over its seed
# corpus. When a target finds a crash, go test writes the input to
# <package>/testdata/fuzz/<Target>/ — commit that file, so the crash stays a
# regression test for every later `go test` run.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-60s}"
pkgs=("${@:-./...}")
failed=()
while read -r pkg; do
	targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	for t in $targets; do
		echo "== $pkg $t ($fuzztime)"
		if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" "$pkg"; then
			failed+=("$pkg $t")
		fi
	done
done < <(go list "${pkgs[@]}")
if ((${#failed[@]})); then
	printf 'fuzz targets that failed (inputs kept under testdata/fuzz):\n'
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "all fuzz targets ran for $fuzztime without failure"
