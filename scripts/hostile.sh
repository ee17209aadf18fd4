#!/usr/bin/env bash
# The hostile set, as a repeatable script: every command that takes a
# file, stdin or prints server text, run against /dev/zero, a FIFO nobody
# writes, a directory, a symlink and an empty file as inputs; scratch
# /dev/null and /dev/full device nodes, a FIFO with a reader, a symlink, a
# directory, a read-only directory and "-" as outputs; endless --jq; ten
# parallel `context create`; a password in the API URL and the API key
# (every stdout and stderr is searched for both); escape-laden server text
# (every output is searched for raw ESC, BEL and C1 CSI); and Ctrl-C/SIGTERM
# timing of every long-running command.
#
#   scripts/hostile.sh            # the whole set (a few minutes)
#   scripts/hostile.sh --quick    # a subset for CI, well under 2 minutes
#
# Prints one line per case, "PASS|FAIL|SKIP name detail (exit N, MS ms,
# P MiB)", then a summary; exits 1 when any case fails.
#
# Everything it creates lives in one mktemp -d directory, removed on exit.
# It never writes to a system path: the "/dev/null" and "/dev/full" outputs
# are device nodes it makes in that directory (mknod, root only; skipped
# otherwise) and checks afterwards are still character devices. /dev/zero is
# only ever read. It stops only the processes it started, by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

# Bounds: no case may run longer than $bound seconds, use more than
# $rss_limit_mib of memory, or take more than $signal_ms from a signal to its
# exit ("stops within a second of Ctrl-C").
bound=20
rss_limit_mib=${HOSTILE_RSS_MIB:-300}
signal_ms=${HOSTILE_SIGNAL_MS:-1000}

s=$(mktemp -d)
pids=()
held_pids=() # the files section's downloads while they run (reset once waited for)
cleanup() {
	local p
	for p in "${pids[@]}" "${held_pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	chmod -R u+w "$s" 2>/dev/null || true
	rm -rf "$s"
}
trap cleanup EXIT

# Built before HOME moves to scratch: go's build and module caches stay the
# user's (under a scratch HOME every run rebuilt the module from nothing).
go build -o "$s/shakectl" .
go build -o "$s/hostile" ./scripts/hostile
sc="$s/shakectl"

# Nothing the user has may change what is tested, and nothing here may touch
# the user's files: HOME, XDG and shakectl's own variables point at scratch.
export HOME="$s/home" XDG_CONFIG_HOME="$s/home/.config" NO_COLOR=1
unset SHAKECTL_CONFIG SHAKECTL_CONTEXT SHAKENFIST_API_URL SHAKENFIST_NAMESPACE SHAKENFIST_KEY
mkdir -p "$HOME" "$s/out" "$s/in"

# The secrets every output is searched for.
key="hs-key-Q7zX4vK9"
pw="hs-pw-M3tB8rW2"

echo "# scripts/hostile.sh$([ $quick = 1 ] && echo ' --quick') at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%FT%TZ)"
echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: timings are upper bounds)"

[ -x /usr/bin/time ] || {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y time >/dev/null
	else
		echo "/usr/bin/time is missing (apt-get install time)" >&2
		exit 2
	fi
}


# --- scratch inputs and outputs ---------------------------------------------
root=0
[ "$(id -u)" = 0 ] && root=1
if [ $root = 1 ]; then
	mknod "$s/null" c 1 3
	mknod "$s/full" c 1 7
fi
mkfifo "$s/in/fifo"
mkdir "$s/in/dir"
: >"$s/in/empty"
: >"$s/empty-stdin"

# --- results ----------------------------------------------------------------
npass=0
nfail=0
nskip=0
failed=()
# line STATUS NAME DETAIL EXIT MS RSS_KIB
line() {
	local mib="-"
	[ -n "${6:-}" ] && mib=$(($6 / 1024))
	printf '%s %s %s (exit %s, %s ms, %s MiB)\n' "$1" "$2" "$3" "$4" "$5" "$mib"
	case "$1" in
	PASS) npass=$((npass + 1)) ;;
	FAIL) nfail=$((nfail + 1)); failed+=("$2") ;;
	SKIP) nskip=$((nskip + 1)) ;;
	esac
}
skip() { printf 'SKIP %s %s\n' "$1" "$2"; nskip=$((nskip + 1)); }

# printable TEXT: TEXT with its control characters dropped, cut to 110
# characters, so a hostile answer quoted in a detail cannot reach this
# script's own terminal.
printable() { printf '%s' "$1" | head -c 400 | tr -d '\000-\037\177' | LC_ALL=C tr -d '\200-\377' | cut -c1-110; }

# first_error DIR: the first stderr line worth quoting.
first_error() {
	local l
	l=$(grep -a -m1 -E 'error|warning|refus|larger|cannot|interrupt|terminat' "$1/stderr" 2>/dev/null || true)
	[ -n "$l" ] || l=$(head -n1 "$1/stderr" 2>/dev/null || true)
	printable "$l"
}

# hazards DIR: what no output may ever hold, whatever the case: a panic, the
# API key or the URL's password, raw terminal escapes.
hazards() {
	local f
	for f in "$1/stdout" "$1/stderr"; do
		[ -f "$f" ] || continue
		if grep -aq -E '^panic: |^goroutine [0-9]+ \[' "$f"; then echo "panicked"; return; fi
		if grep -aqF -e "$key" -e "$pw" "$f"; then echo "leaked a secret in $(basename "$f")"; return; fi
		# ESC [ K (erase to the end of the line) is shakectl's own, in the
		# probe's live line on a terminal; any other ESC is not.
		if LC_ALL=C grep -aqP '\x1b(?!\[K)' "$f"; then echo "raw ESC in $(basename "$f")"; return; fi
		if LC_ALL=C grep -aq $'\x07' "$f"; then echo "raw BEL in $(basename "$f")"; return; fi
		# U+009B, the 8-bit CSI, as UTF-8 (C2 9B) or alone.
		if LC_ALL=C grep -aqP '\xc2\x9b|(^|[\x00-\x7f])\x9b' "$f"; then echo "raw C1 CSI (U+009B) in $(basename "$f")"; return; fi
	done
}

# exit_ok RC ALLOWED: ALLOWED is a |-separated list of exits, or "any" (any
# exit the command chose itself: not killed by the bound, not a crash).
exit_ok() {
	[ "$2" = any ] && [ "$1" -lt 128 ] && return 0
	local a
	IFS='|' read -ra a <<<"$2"
	for x in "${a[@]}"; do [ "$1" = "$x" ] && return 0; done
	return 1
}

# run NAME ALLOWED STDIN CMD... runs one bounded case. STDIN is a file (a
# FIFO is opened read-write, so it never sees EOF: a writer that never
# writes). $check, when set, is a command run afterwards with the case's
# directory; its output, if any, is why the case fails.
run() {
	local name=$1 allow=$2 in=$3 d rc=0 t0 t1 ms rss why
	shift 3
	d="$s/out/$name"
	mkdir -p "$d"
	t0=$(date +%s%N)
	if [ -p "$in" ]; then
		/usr/bin/time -f %M -o "$d/time" timeout -s KILL "$bound" "$@" <>"$in" >"$d/stdout" 2>"$d/stderr" || rc=$?
	else
		/usr/bin/time -f %M -o "$d/time" timeout -s KILL "$bound" "$@" <"$in" >"$d/stdout" 2>"$d/stderr" || rc=$?
	fi
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	echo "$ms" >"$d/ms"
	rss=$(tail -n1 "$d/time" | tr -dc 0-9)
	why=""
	if [ "$rc" = 137 ]; then
		why="did not end within ${bound}s (killed)"
	elif ! exit_ok "$rc" "$allow"; then
		why="exit $rc, want $allow: $(first_error "$d")"
	elif [ -n "$rss" ] && [ "$rss" -gt $((rss_limit_mib * 1024)) ]; then
		why="peak RSS over $rss_limit_mib MiB"
	else
		why=$(hazards "$d")
		if [ -z "$why" ] && [ -n "${check:-}" ]; then why=$($check "$d" || true); fi
	fi
	if [ -n "$why" ]; then
		line FAIL "$name" "$why" "$rc" "$ms" "$rss"
	else
		line PASS "$name" "$(first_error "$d")" "$rc" "$ms" "$rss"
	fi
}

# sig NAME SIGNAL WANT STDIN CMD... starts CMD, sends SIGNAL after about a
# second and measures signal→exit: it must be at most $signal_ms and exit
# WANT (a |-separated list). A command that ended before the signal passes
# only when its exit is in $early (a refusal is as good as stopping).
sig() {
	local name=$1 signal=$2 want=$3 in=$4 d rc=0 tpid pid t0 t1 ms rss why wd
	shift 4
	d="$s/out/$name"
	mkdir -p "$d" "$d/wd"
	if [ -p "$in" ]; then
		/usr/bin/time -f %M -o "$d/time" "$@" <>"$in" >"$d/stdout" 2>"$d/stderr" &
	else
		/usr/bin/time -f %M -o "$d/time" "$@" <"$in" >"$d/stdout" 2>"$d/stderr" &
	fi
	tpid=$!
	sleep 1
	pid=$(pgrep -P "$tpid" || true)
	if [ -z "$pid" ]; then
		wait "$tpid" || rc=$?
		rss=$(tail -n1 "$d/time" | tr -dc 0-9)
		if exit_ok "$rc" "${early:-none}"; then
			why=$(hazards "$d")
			[ -z "$why" ] && { line PASS "$name" "ended before the signal: $(first_error "$d")" "$rc" "-" "$rss"; return; }
		else
			why="ended before the signal, exit $rc: $(first_error "$d")"
		fi
		line FAIL "$name" "$why" "$rc" "-" "$rss"
		return
	fi
	t0=$(date +%s%N)
	kill -"$signal" "$pid"
	# A watchdog: whatever ignores the signal is killed after 5 s.
	(
		for _ in $(seq 50); do
			[ -e "$d/wd/done" ] && exit 0
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	) &
	wd=$!
	wait "$tpid" || rc=$?
	t1=$(date +%s%N)
	touch "$d/wd/done"
	wait "$wd" || true
	ms=$(((t1 - t0) / 1000000))
	rss=$(tail -n1 "$d/time" | tr -dc 0-9)
	why=""
	if [ "$rc" = 137 ]; then
		why="ignored SIG$signal for 5 s (killed)"
	elif ! exit_ok "$rc" "$want" && ! exit_ok "$rc" "${early:-none}"; then
		# A case that may end by itself (early) can do so in the instant
		# the signal is sent: merge-stdin-zero reaches its 4 GiB bound on
		# /dev/zero in about the second this script waits. Its own exit is
		# as good as the signal's, within the same time bound below.
		why="exit $rc after SIG$signal, want $want: $(first_error "$d")"
	elif [ "$ms" -gt "$signal_ms" ]; then
		why="took $ms ms to exit after SIG$signal (want ≤ $signal_ms)"
	elif [ -n "$rss" ] && [ "$rss" -gt $((${rss_mib:-$rss_limit_mib} * 1024)) ]; then
		why="peak RSS over ${rss_mib:-$rss_limit_mib} MiB"
	else
		why=$(hazards "$d")
		if [ -z "$why" ] && [ -n "${check:-}" ]; then why=$($check "$d" || true); fi
	fi
	if [ -n "$why" ]; then
		line FAIL "$name" "$why${note:+ ($note)}" "$rc" "$ms" "$rss"
	else
		line PASS "$name" "SIG$signal→exit $(first_error "$d")" "$rc" "$ms" "$rss"
	fi
}

# --- simulators --------------------------------------------------------------
# start NAME CMD...: runs a server in the background, its stdout and stderr in
# $s/NAME.out and $s/NAME.err, and waits until its stdout names a URL.
start() {
	local name=$1
	shift
	"$@" >"$s/$name.out" 2>"$s/$name.err" &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q 'http://127' "$s/$name.out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$name did not start:" >&2
	printable "$(cat "$s/$name.err")" >&2
	exit 1
}
url_of() { grep -o -m1 "$2 *http://127[^ ]*" "$s/$1.out" | grep -o 'http://.*'; }

start cluster "$sc" sim cluster --listen 127.0.0.1:0 --auth-key "$key" --quiet
api=$(grep -o -m1 'http://127[^ ]*' "$s/cluster.out")
start router "$sc" sim router --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0
router=$(url_of router router)
start hostile "$s/hostile" -upstream "$api"
hapi=$(url_of hostile api)
hrouter=$(url_of hostile router)
# A second cluster whose creates are refused with a 507 whose stage is
# escape-laden (the retry line and the hint print the stage).
cat >"$s/in/refusals.yaml" <<'EOF'
- status: 507
  body: {error: "No nodes remaining at scheduling stage \e]0;PWNED\a\e[2K\rFAKE: all good", stage: "\e]0;PWNED\a\e[2K\rFAKE: all good", transient: true}
  headers: {Retry-After: "1"}
  repeat: 100
EOF
# Not --quiet: its request log (stderr, $s/refusing.err) is one of the
# stderr paths the escape check reads.
start refusing "$sc" sim cluster --listen 127.0.0.1:0 --auth-key "$key" --script "$s/in/refusals.yaml"
rapi=$(grep -o -m1 'http://127[^ ]*' "$s/refusing.out")
# A third cluster whose creates are refused with an empty Retry-After (the
# retry line must say the 15 s default was used).
cat >"$s/in/empty-retry-after.yaml" <<'EOF'
- status: 507
  body: {error: "No nodes remaining at scheduling stage sufficient_idle_cpu", status: 507, stage: sufficient_idle_cpu, transient: true}
  headers: {Retry-After: ""}
  repeat: 100
EOF
start emptyra "$sc" sim cluster --listen 127.0.0.1:0 --auth-key "$key" --quiet --script "$s/in/empty-retry-after.yaml"
eapi=$(grep -o -m1 'http://127[^ ]*' "$s/emptyra.out")
export SHAKENFIST_API_URL="$api" SHAKENFIST_NAMESPACE=system SHAKENFIST_KEY="$key"
echo "# sim cluster $api, sim router $router, hostile proxy $hapi, hostile router $hrouter, refusing cluster $rapi, empty Retry-After cluster $eapi"

# Fixtures every input flag reads through a symlink: real content.
printf '#cloud-config\n' >"$s/in/userdata.real"
printf 'hsnetf' >"$s/in/name.real"
printf 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostileSetKeyOnlyForTests hs@loopback\n' >"$s/in/sshkey.real"
printf '{"netblock": "10.99.0.0/24", "name": "hsnet"}\n' >"$s/in/body.real"
printf 'actor-0001\nactor-0002\n' >"$s/in/actors.real"
printf -- '- schedule: true\n' >"$s/in/script.real"
printf '# shakectl contexts, kept by hand\n\n# the lab cloud\ncontexts:\n  lab: {api-url: "http://127.0.0.1:1", namespace: system, key: lab-key}  # a hand-written comment\n' >"$s/in/config.real"
printf 'hs-namespace-secret\n' >"$s/in/secret.real"
for f in userdata name sshkey body actors script config secret; do ln -s "$s/in/$f.real" "$s/in/$f.link"; done
# A real report, for merge.
probe_small=(parking-probe --target "$router" --mode burst --requests 20 --actors 5 --seed 1)
# Exit 3 (a check failed, as on a loaded machine) still writes the report.
"$sc" "${probe_small[@]}" --out "$s/in/report.real" -o json >/dev/null 2>"$s/in/report.err" || [ $? = 3 ]
ln -s "$s/in/report.real" "$s/in/report.link"
# The same report with an escape-laden target (merge prints it).
sed 's#"target": *"[^"]*"#"target": "http://\\u001b]0;PWNED\\u0007\\u001b[2K\\rFAKE: all good"#' "$s/in/report.real" >"$s/in/report.hostile"
grep -q 'PWNED' "$s/in/report.hostile" || { echo "could not make the hostile report" >&2; exit 1; }
# An instance to upload to, download from and screenshot.
"$sc" instance create hsvm 1 1024 -d 8@debian:12 --async block -o json >/dev/null 2>"$s/in/hsvm.err" ||
	{ echo "could not create the instance hsvm:" >&2; printable "$(cat "$s/in/hsvm.err")" >&2; exit 1; }
"$sc" artifact upload hsimg "$s/in/userdata.real" --quiet >/dev/null 2>&1 || true
printf 'a file to download\n' >"$s/in/upload.real"
ln -s "$s/in/upload.real" "$s/in/upload.link"
"$sc" instance upload hsvm "$s/in/upload.real" /tmp/hs-dl --quiet >/dev/null 2>&1 || true

echo "## [${SECONDS}s] inputs: every file-or-stdin flag × /dev/zero, a FIFO nobody writes, a directory, a symlink, an empty file"
# input NAME FIXTURE ALLOW-EMPTY ALLOW-LINK ARGV...: %IN% in ARGV is
# replaced by the input path. /dev/zero must be refused (exit 2, naming the bound), a
# directory refused, a symlink read as the file it points to, a FIFO either
# refused at once or interruptible, an empty file handled.
input() {
	local name=$1 fixture=$2 allow_empty=$3 allow_link=$4
	shift 4
	local argv=("$@") a i
	sub() { a=(); for i in "${argv[@]}"; do a+=("${i//%IN%/$1}"); done; }
	sub /dev/zero
	check=names_bound run "$name/zero" 2 "$s/empty-stdin" "${a[@]}"
	sub "$s/in/dir"
	run "$name/dir" "1|2" "$s/empty-stdin" "${a[@]}"
	sub "$s/in/$fixture.link"
	run "$name/symlink" "$allow_link" "$s/empty-stdin" "${a[@]}"
	sub "$s/in/empty"
	run "$name/empty" "$allow_empty" "$s/empty-stdin" "${a[@]}"
	if [ $quick = 0 ] || [ "$name" = api-input ]; then
		sub "$s/in/fifo"
		early="1|2" sig "$name/fifo" INT 130 "$s/empty-stdin" "${a[@]}"
	fi
}
names_bound() { grep -aqiE 'larger than|more than|at most|not a regular file' "$1/stderr" || echo "refused without naming the bound: $(first_error "$1")"; }
# stdin_input NAME ARGV: the "-" form of the same flag, stdin from /dev/zero,
# a FIFO nobody writes, an empty file.
stdin_input() {
	local name=$1
	shift
	check=names_bound run "$name/stdin-zero" "${zero_exit:-2}" /dev/zero "$@"
	run "$name/stdin-empty" any "$s/empty-stdin" "$@"
	early="1|2" sig "$name/stdin-fifo" INT 130 "$s/in/fifo" "$@"
}

input api-input body any 0 "$sc" api POST /networks --input %IN%
input api-F name any 0 "$sc" api POST /networks -F netblock=10.97.0.0/24 -F name=@%IN%
input user-data userdata any 0 "$sc" instance create hsu1 1 1024 -d 8@debian:12 -u %IN% --async continue
input ssh-key sshkey any 0 "$sc" instance create hsk1 1 1024 -d 8@debian:12 -i %IN% --async continue
input config config any 0 "$sc" config view --config %IN%
input probe-body body "0|3" "0|3" "$sc" "${probe_small[@]}" --body @%IN% --method POST
input probe-actors actors "2" "0|3" "$sc" "${probe_small[@]}" --actors-file %IN%
input sim-script script "0|2|124|130" "0|124|130" timeout -s INT 3 "$sc" sim cluster --listen 127.0.0.1:0 --quiet --script %IN%
input merge report "1|2|3" "0|3" "$sc" parking-probe merge %IN%
input key-file secret "1|2" "0|1" "$sc" namespace add-key system hskey --key-file %IN%
if [ $quick = 0 ]; then
	input artifact-upload upload "any" "0" "$sc" artifact upload hsart %IN% --quiet
	input instance-upload upload "any" "0" "$sc" instance upload hsvm %IN% /tmp/hs-upload --quiet
fi
stdin_input api-input "$sc" api POST /networks --input -
stdin_input user-data "$sc" instance create hsu2 1 1024 -d 8@debian:12 -u - --async continue
stdin_input probe-body "$sc" "${probe_small[@]}" --body @- --method POST
stdin_input probe-actors "$sc" "${probe_small[@]}" --actors-file -
zero_exit="1|2" stdin_input merge "$sc" parking-probe merge -
stdin_input key-stdin "$sc" context create hsctx --api-url "$api" --namespace system --key-stdin
stdin_input key-file "$sc" namespace add-key system hskey2 --key-file -

echo "## [${SECONDS}s] outputs: every file-writing flag × scratch null, scratch full, a FIFO with a reader, a symlink, a directory, a read-only directory, -"
# Each output case writes to fresh scratch targets in $s/o, named with the
# suffix $sfx (".html" for --plot, which wants it): device nodes null and
# full (root), a symlink to link.target, a directory, a FIFO, a read-only
# directory.
sfx=""
reset_outputs() {
	chmod -R u+w "$s/o" 2>/dev/null || true
	rm -rf "$s/o"
	mkdir -p "$s/o/dir$sfx" "$s/o/ro"
	: >"$s/o/link.target"
	ln -s "$s/o/link.target" "$s/o/link$sfx"
	mkfifo "$s/o/fifo$sfx"
	if [ $root = 1 ]; then
		mknod "$s/o/null$sfx" c 1 3
		mknod "$s/o/full$sfx" c 1 7
	fi
	chmod 555 "$s/o/ro"
}
# still_char: the scratch device nodes are still character devices.
still_char() {
	local n
	for n in "$s/null" "$s/full" "$s/o/null$sfx" "$s/o/full$sfx"; do
		[ -e "$n" ] || [ -L "$n" ] || continue
		[ -c "$n" ] || echo "$n is no longer a character device"
	done
}
# full_kept: the device survived, and the result still reached stdout or
# the error said the write failed (a failed write must not lose it silently).
full_kept() {
	still_char
	grep -aqiE 'no space|writing' "$1/stderr" || echo "a write to /dev/full did not fail: $(first_error "$1")"
}
# link_kept: the symlink is still a symlink and its target was written.
link_kept() {
	[ -L "$s/o/link$sfx" ] || { echo "the symlink was replaced by a file"; return; }
	[ -s "$s/o/link.target" ] || echo "the symlink's target was not written"
}
fifo_read() { [ -s "$s/o/fifo.got" ] || echo "the FIFO's reader got nothing"; [ -p "$s/o/fifo$sfx" ] || echo "the FIFO was replaced"; }
no_dash_file() {
	[ -e "$s/o/-" ] && echo "wrote a file named -"
	grep -aq . "$1/stdout" || echo "nothing on stdout"
}
# in_dir: a download into a directory writes a file inside it.
in_dir() { [ -n "$(ls -A "$s/o/dir$sfx")" ] || echo "nothing written into the directory"; }
# output NAME ALLOW-OK DIR-ALLOW ARGV...: %IN% in ARGV is the output path.
# DIR-ALLOW is the exit a directory gets: a refusal (1|2) for --out, 0 for
# the downloads, which write DIR/NAME as cp does.
output() {
	local name=$1 ok=$2 dirok=$3 reader
	shift 3
	local argv=("$@") a i
	sub() { a=(); for i in "${argv[@]}"; do a+=("${i//%IN%/$1}"); done; }
	reset_outputs
	if [ $root = 1 ]; then
		sub "$s/o/null$sfx"
		check=still_char run "$name/null" "$ok" "$s/empty-stdin" "${a[@]}"
		sub "$s/o/full$sfx"
		check=full_kept run "$name/full" "1" "$s/empty-stdin" "${a[@]}"
	else
		skip "$name/null" "not root: no scratch device nodes"
	fi
	sub "$s/o/link$sfx"
	check=link_kept run "$name/symlink" "$ok" "$s/empty-stdin" "${a[@]}"
	sub "$s/o/dir$sfx"
	if [ "$dirok" = 0 ]; then
		check=in_dir run "$name/dir" "$dirok" "$s/empty-stdin" "${a[@]}"
	else
		run "$name/dir" "$dirok" "$s/empty-stdin" "${a[@]}"
	fi
	sub "$s/o/fifo$sfx"
	cat "$s/o/fifo$sfx" >"$s/o/fifo.got" &
	reader=$!
	check=fifo_read run "$name/fifo" "$ok" "$s/empty-stdin" "${a[@]}"
	# A command that never opened the FIFO leaves its reader waiting.
	kill "$reader" 2>/dev/null || true
	wait "$reader" 2>/dev/null || true
	# Root writes anywhere: a read-only directory only stops other users,
	# so as root the case runs as nobody (setpriv), which needs the
	# scratch directory traversable for that run.
	sub "$s/o/ro/x$sfx"
	if [ $root = 0 ]; then
		run "$name/ro-dir" "1|2" "$s/empty-stdin" "${a[@]}"
	elif [ $quick = 0 ] && command -v setpriv >/dev/null; then
		chmod 711 "$s"
		chmod 755 "$s/o" "$sc"
		check= run "$name/ro-dir" "1|2" "$s/empty-stdin" setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$s/o" XDG_CONFIG_HOME="$s/o" "${a[@]}"
		chmod 700 "$s"
	fi
}
sfx=""
output probe-out "0|3" "1|2" "$sc" "${probe_small[@]}" --out %IN%
output merge-out "0|3" "1|2" "$sc" parking-probe merge "$s/in/report.real" --out %IN%
# The downloads replace an existing file (the symlink's target) only with
# --clobber; the cases below check the refusal without it.
output artifact-download 0 0 "$sc" artifact download hsimg %IN% --quiet --clobber
if [ $quick = 0 ]; then
	output instance-download 0 0 "$sc" instance download hsvm /tmp/hs-dl %IN% --quiet --clobber
	output instance-screenshot 0 0 "$sc" instance screenshot hsvm %IN% --clobber
	sfx=".html"
	output probe-plot "0|3" "1|2" "$sc" "${probe_small[@]}" --plot %IN%
	output merge-plot "0|3" "1|2" "$sc" parking-probe merge "$s/in/report.real" --plot %IN%
	sfx=""
fi
# A download into a directory is named after what was
# typed, never the server's name (an artifact's source URL, which its
# owner sets, ending in a dotfile's name), and replaces nothing without
# --clobber.
reset_outputs
mkdir -p "$s/o/dot"
printf '# mine\n' >"$s/o/dot/.hsrc"
"$sc" artifact upload hsdot "$s/in/userdata.real" --source-url "https://other.example/ns/.hsrc" --quiet >/dev/null 2>&1 || true
dot_kept() {
	[ "$(cat "$s/o/dot/.hsrc")" = "# mine" ] || { echo "DIR/.hsrc was overwritten (the server's name)"; return; }
	[ -s "$s/o/dot/hsdot" ] || echo "nothing written as DIR/hsdot (the name typed)"
}
check=dot_kept run download-name/server-dotfile 0 "$s/empty-stdin" "$sc" artifact download hsdot "$s/o/dot/"
printf 'kept\n' >"$s/o/dot/hsdot"
not_clobbered() {
	[ "$(cat "$s/o/dot/hsdot")" = "kept" ] || { echo "an existing file was replaced without --clobber"; return; }
	grep -aq -- '--clobber' "$1/stderr" || echo "the refusal does not name --clobber: $(first_error "$1")"
}
check=not_clobbered run download-name/no-clobber 1 "$s/empty-stdin" "$sc" artifact download hsdot "$s/o/dot/"
check=not_clobbered run download-name/no-clobber-file 1 "$s/empty-stdin" "$sc" artifact download hsdot "$s/o/dot/hsdot"
reset_outputs
# In $s/o, where a file named "-" would show.
cd "$s/o"
check=no_dash_file run probe-out/dash "0|3" "$s/empty-stdin" "$sc" "${probe_small[@]}" --out -
check=no_dash_file run merge-out/dash "0|3" "$s/empty-stdin" "$sc" parking-probe merge "$s/in/report.real" --out -
cd "$OLDPWD"
# An output that cannot be written is refused before the load: a 5 s run
# that fails in under 2 s did not send it.
before_load() { [ "$(cat "$1/ms")" -lt 2000 ] || echo "refused only after the load ($(cat "$1/ms") ms)"; }
check=before_load run probe-out/dir-before-load "1|2" "$s/empty-stdin" "$sc" parking-probe --target "$router" --mode closed --duration 5s --actors 5 --seed 1 --out "$s/o/dir"
mkdir -p "$s/o/dir.html"
check=before_load run probe-plot/dir-before-load "1|2" "$s/empty-stdin" "$sc" parking-probe --target "$router" --mode closed --duration 5s --actors 5 --seed 1 --plot "$s/o/dir.html"

echo "## [${SECONDS}s] files: server names that are not file names, a DEST taken mid-download, - as stdout"
# The hostile proxy's /blobname/CASE cluster adds a blob named blobNames[CASE]
# (scripts/hostile/files.go: "../../PWNED1", a NUL, a newline, escapes, an
# absolute path, 300 characters...) to the blob list and makes it every
# artifact's newest version, and serves its view and data. backup create
# and artifact download refuse it (exit 1) naming it, before anything is
# written: the scratch tree is as it was, and no PWNED file exists under $s.
# The commands run in $fbk/a/b, so "../../PWNED1" stays in scratch on a
# shakectl that would write it (3ebbf0b wrote $fbk/a/b/PWNED1).
fbk="$s/o/files"
tree_of() { (cd "$1" && find . | sort | tr '\n' ' '); }
no_pwned() {
	local found
	grep -aqF 'the server sent blob name' "$1/stderr" || { echo "the refusal does not name the server's value: $(first_error "$1")"; return; }
	found=$(find "$s" -name '*PWNED*' -not -path "$s/out/*" 2>/dev/null | head -n1)
	[ -z "$found" ] || { echo "wrote $(printable "$found")"; return; }
	[ "$(tree_of "$fbk")" = ". ./a ./a/b ./a/b/sub " ] || echo "the scratch tree changed: $(printable "$(tree_of "$fbk")")"
}
rm -rf "$fbk"
mkdir -p "$fbk/a/b/sub"
cd "$fbk/a/b"
for c in dotdot deeper slash nul newline esc absolute long notauuid; do
	SHAKENFIST_API_URL="$hapi/blobname/$c" check=no_pwned run "files/backup-name-$c" 1 "$s/empty-stdin" "$sc" backup create sub/summary.json
done
for c in dotdot nul esc long; do
	SHAKENFIST_API_URL="$hapi/blobname/$c" check=no_pwned run "files/download-name-$c" 1 "$s/empty-stdin" "$sc" artifact download hsimg sub/
done
cd "$OLDPWD"
# held NAME DIR N ACTION CMD...: runs CMD N times at once (2: a race)
# against the proxy's /held cluster, which holds every blob's data back
# until released; once DIR holds N temporary files (made before the data is
# asked for: the downloads are under way, DEST not claimed), runs ACTION,
# releases the data and checks the runs with $check. $d/codes is their
# exits, sorted.
held() {
	local name=$1 dir=$2 n=$3 action=$4 d i rc t0 ms why p
	shift 4
	d="$s/out/$name"
	mkdir -p "$d"
	curl -s "$hapi/gate/arm" >/dev/null
	held_pids=()
	t0=$(date +%s%N)
	for i in $(seq "$n"); do
		SHAKENFIST_API_URL="$hapi/held" timeout -s KILL "$bound" "$@" >"$d/stdout.$i" 2>"$d/stderr.$i" &
		held_pids+=($!)
	done
	for _ in $(seq 100); do
		[ "$(find "$dir" -maxdepth 1 -name '.*.tmp-*' 2>/dev/null | wc -l)" -ge "$n" ] && break
		sleep 0.1
	done
	$action
	curl -s "$hapi/gate/release" >/dev/null
	: >"$d/codes.raw"
	for p in "${held_pids[@]}"; do
		rc=0
		wait "$p" || rc=$?
		echo "$rc" >>"$d/codes.raw"
	done
	held_pids=()
	sort -n "$d/codes.raw" | tr '\n' ' ' | sed 's/ $//' >"$d/codes"
	ms=$((($(date +%s%N) - t0) / 1000000))
	cat "$d"/stderr.* >"$d/stderr"
	cat "$d"/stdout.* >"$d/stdout"
	why=$(hazards "$d")
	[ -n "$why" ] || why=$($check "$d" || true)
	if [ -n "$why" ]; then
		line FAIL "$name" "$why" "$(cat "$d/codes")" "$ms" ""
	else
		line PASS "$name" "$(first_error "$d")" "$(cat "$d/codes")" "$ms" ""
	fi
}
fdest="$fbk/held/img"
# taken_kept DIR: the one download exits 1 and says DEST appeared; the file
# named as keeping its bytes holds them.
taken_kept() {
	local k
	[ "$(cat "$1/codes")" = 1 ] || { echo "exit $(cat "$1/codes"), want 1"; return; }
	grep -aqF 'appeared while shakectl was writing it' "$1/stderr" || { echo "no refusal: $(first_error "$1")"; return; }
	k=$(grep -ao 'is kept as [^;]*' "$1/stderr" | head -n1 | cut -c12-)
	cmp -s "$k" "$s/in/userdata.real" || echo "the downloaded bytes are not in the file named: $(printable "$k")"
}
drop_file() { printf 'theirs\n' >"$fdest"; }
file_kept() {
	taken_kept "$1"
	[ "$(cat "$fdest")" = theirs ] || echo "DEST, dropped mid-download, was replaced"
}
drop_link() { ln -s "$fbk/victim" "$fdest"; }
dropped_link_kept() {
	taken_kept "$1"
	[ -L "$fdest" ] || echo "the symlink dropped at DEST was replaced"
	[ -e "$fbk/victim" ] && echo "the symlink dropped at DEST was followed"
}
# one_wins DIR: of two racing runs exactly one exits 0; the other exits 1
# saying why.
one_wins() {
	[ "$(cat "$1/codes")" = "0 1" ] || { echo "exits $(cat "$1/codes"), want exactly one 0 and one 1"; return; }
	grep -aqE 'appeared while shakectl was writing it|already exists: pass --clobber' "$1/stderr" || echo "the loser did not say why: $(first_error "$1")"
}
race_won() {
	one_wins "$1"
	cmp -s "$fdest" "$s/in/userdata.real" || echo "DEST does not hold the artifact"
}
nothing() { :; }
mkdir -p "$fbk/held"
check=file_kept held files/dest-file-mid-download "$fbk/held" 1 drop_file "$sc" artifact download hsimg "$fdest" --quiet
rm -rf "$fbk/held" && mkdir -p "$fbk/held"
check=dropped_link_kept held files/dest-symlink-mid-download "$fbk/held" 1 drop_link "$sc" artifact download hsimg "$fdest" --quiet
rm -rf "$fbk/held" && mkdir -p "$fbk/held"
check=race_won held files/two-downloads-one-dest "$fbk/held" 2 nothing "$sc" artifact download hsimg "$fdest" --quiet
rm -rf "$fbk/held" && mkdir -p "$fbk/held"
check=one_wins held files/two-backups-one-dest "$fbk/held/blobs" 2 nothing "$sc" backup create "$fbk/held/summary.json" --quiet
rm -rf "$fbk"
# "-" is stdout for a download, as for --out (no file named "-" in the
# working directory); backup create refuses it (exit 2): its blobs are
# files.
cd "$s/o"
check=no_dash_file run files/artifact-download-dash 0 "$s/empty-stdin" "$sc" artifact download hsimg -
check=no_dash_file run files/instance-download-dash 0 "$s/empty-stdin" "$sc" instance download hsvm /tmp/hs-dl -
dash_refused() { [ -e "$s/o/-" ] && echo "wrote a file named -"; grep -aq 'stdout cannot hold\|the blobs go beside it' "$1/stderr" || echo "the refusal does not say why: $(first_error "$1")"; }
check=dash_refused run files/backup-dash 2 "$s/empty-stdin" "$sc" backup create -
check=dash_refused run files/backup-blobs-dir-dash 2 "$s/empty-stdin" "$sc" backup create summary.json --blobs-dir -
# The config file cannot be stdout either: it is read back and holds keys.
config_dash_refused() {
	if [ -e "$s/o/-" ] || [ -e "$s/o/-.lock" ]; then echo "wrote - or -.lock"; fi
	grep -aq 'cannot be standard output' "$1/stderr" || echo "the refusal does not say why: $(first_error "$1")"
}
SHAKECTL_CONFIG=- check=config_dash_refused run files/config-dash 2 "$s/in/secret.real" "$sc" context create hsdash --api-url "$api" --namespace system --key-stdin
cd "$OLDPWD"

echo "## [${SECONDS}s] config writes: a symlinked config, a directory, scratch null, parallel creates, comments"
cfgcase() {
	local name=$1 path=$2 allow=$3
	SHAKECTL_CONFIG="$path" run "config-write/$name" "$allow" "$s/in/secret.real" \
		"$sc" context create "hs-$name" --api-url "$api" --namespace system --key-stdin
}
reset_outputs
cp "$s/in/config.real" "$s/o/link.target"
check=link_kept cfgcase symlink "$s/o/link" 0
cfgcase dir "$s/o/dir" "1|2"
# A config that is a device is written in place (lost, as the user asked),
# never replaced by a regular file.
[ $root = 1 ] && check=still_char cfgcase null "$s/null" "0|1|2"
grep -q 'hand-written comment' "$s/o/link.target" && grep -q 'kept by hand' "$s/o/link.target" &&
	line PASS config-write/comment-kept "the hand-written comment survived" 0 - "" ||
	line FAIL config-write/comment-kept "the comment was lost" - - ""
# Ten creates at once, through the same config: all ten must be saved.
cfg="$s/o/parallel.yaml"
cp "$s/in/config.real" "$cfg"
ppids=()
for i in $(seq 10); do
	printf 'hs-parallel-key\n' | SHAKECTL_CONFIG="$cfg" timeout -s KILL "$bound" "$sc" context create "par$i" --api-url "$api" --namespace system --key-stdin >"$s/o/par$i.out" 2>&1 &
	ppids+=($!)
done
pfail=0
for p in "${ppids[@]}"; do wait "$p" || pfail=$((pfail + 1)); done
saved=$(SHAKECTL_CONFIG="$cfg" "$sc" context list -o json 2>/dev/null | grep -o '"par[0-9]*"' | sort -u | wc -l)
if [ "$pfail" = 0 ] && [ "$saved" = 10 ]; then
	line PASS config-write/parallel-10 "10 of 10 contexts saved" 0 - ""
else
	line FAIL config-write/parallel-10 "$saved of 10 contexts saved, $pfail creates failed" - - ""
fi
# The bad names and URLs item 3 found accepted.
SHAKECTL_CONFIG="$cfg" run config-write/empty-key 2 "$s/in/empty" "$sc" context create hsempty --api-url "$api" --namespace system --key-stdin
SHAKECTL_CONFIG="$cfg" run config-write/ftp-url 2 "$s/in/secret.real" "$sc" context create hsftp --api-url ftp://127.0.0.1/ --namespace system --key-stdin
SHAKECTL_CONFIG="$cfg" run config-write/dotdot-name 2 "$s/in/secret.real" "$sc" context create ../hs --api-url "$api" --namespace system --key-stdin

echo "## [${SECONDS}s] --jq: endless and runaway expressions"
jq_case() {
	local name=$1 expr=$2
	run "jq/$name" "1|2" "$s/empty-stdin" "$sc" network list --jq "$expr"
}
jq_case collect-repeat '[repeat(1)]'
[ $quick = 0 ] && jq_case collect-range '[range(1e12)]'
[ $quick = 0 ] && jq_case recurse-deep 'def f: [f]; f'
# Endless with nothing printed, and endless printing: Ctrl-C and SIGTERM
# stop both (stdout to the scratch null device or a file that is bounded by
# the second).
sig jq/until-false/INT INT 130 "$s/empty-stdin" "$sc" network list --jq 'until(false; .)'
sig jq/until-false/TERM TERM 143 "$s/empty-stdin" "$sc" network list --jq 'until(false; .)'
# Quadratic, not endless: it would take hours to reach the heap bound.
[ $quick = 0 ] && sig jq/string-grow/INT INT 130 "$s/empty-stdin" "$sc" network list --jq 'reduce range(1e9) as $i (""; . + "xxxxxxxxxxxxxxxx")'
# repeat(1) prints for ever: its results must stream (some are written
# within the second before the signal), and SIGINT must stop it.
d="$s/out/jq/repeat-stdout"
mkdir -p "$d"
"$sc" network list --jq 'repeat(1)' >"$d/stdout" 2>"$d/stderr" &
jp=$!
sleep 1
t0=$(date +%s%N)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$jp/status" 2>/dev/null || echo 0)
kill -INT "$jp" 2>/dev/null || true
rc=0
wait "$jp" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
printed=$(stat -c %s "$d/stdout")
rm -f "$d/stdout"
if [ "$rc" = 130 ] && [ "$ms" -le "$signal_ms" ] && [ "${hwm:-0}" -le $((rss_limit_mib * 1024)) ] && [ "$printed" -gt 0 ]; then
	line PASS jq/repeat-stdout/INT "printed $printed bytes in the second before SIGINT→exit" "$rc" "$ms" "$hwm"
else
	line FAIL jq/repeat-stdout/INT "streaming repeat(1): printed $printed bytes, SIGINT→exit $rc" "$rc" "$ms" "$hwm"
fi

echo "## [${SECONDS}s] secrets: a password in the API URL, the key in the environment"
bad="http://alice:$pw@127.0.0.1:1"
SHAKENFIST_API_URL="$bad" run secrets/config-view 0 "$s/empty-stdin" "$sc" config view
SHAKENFIST_API_URL="$bad" run secrets/config-view-json 0 "$s/empty-stdin" "$sc" config view -o json
SHAKENFIST_API_URL="$bad" run secrets/transport-error 1 "$s/empty-stdin" "$sc" instance list
SHAKENFIST_API_URL="${api/http:\/\//http://alice:$pw@}" run secrets/debug-live 0 "$s/empty-stdin" "$sc" instance list --debug
SHAKENFIST_API_URL="${api/http:\/\//http://alice:$pw@}" run secrets/debug-api 0 "$s/empty-stdin" "$sc" api GET /instances --debug
run secrets/debug-auth 0 "$s/empty-stdin" "$sc" network list --debug -o json
cfg2="$s/o/secret.yaml"
printf '%s\n' "$key" | SHAKECTL_CONFIG="$cfg2" "$sc" context create hssecret --api-url "${api/http:\/\//http://alice:$pw@}" --namespace system --key-stdin --use >/dev/null 2>&1 || true
SHAKECTL_CONFIG="$cfg2" run secrets/context-list any "$s/empty-stdin" "$sc" context list
SHAKECTL_CONFIG="$cfg2" run secrets/context-show any "$s/empty-stdin" "$sc" context show hssecret -o json
SHAKECTL_CONFIG="$cfg2" run secrets/config-view-context 0 "$s/empty-stdin" env -u SHAKENFIST_API_URL -u SHAKENFIST_KEY "$sc" config view
if grep -aqF "$key" "$cfg2" && [ "$(stat -c %a "$cfg2")" = 600 ]; then
	line PASS secrets/config-mode "the key is stored in a 0600 file" 0 - ""
else
	line FAIL secrets/config-mode "config file mode $(stat -c %a "$cfg2" 2>/dev/null)" - - ""
fi

echo "## [${SECONDS}s] terminal text: escape-laden server answers on every path"
# Names the hostile proxy rewrites into escapes.
"$sc" network create hostilemark 10.98.0.0/24 --async block >/dev/null 2>&1 || true
"$sc" instance create hostilemark 1 1024 -d 8@debian:12 --async continue >/dev/null 2>&1 || true
"$sc" instance set-metadata hsvm hostilemark hostilemark >/dev/null 2>&1 || true
# saw_hostile: the case is only a test if the hostile text reached the
# output (sanitised: "PWNED" survives, its escapes do not).
saw_hostile() { grep -aqF PWNED "$1/stdout" "$1/stderr" || echo "the hostile text never arrived: the case tested nothing"; }
H() { SHAKENFIST_API_URL="$hapi" check=saw_hostile run "$@"; }
H escapes/instance-list 0 "$s/empty-stdin" "$sc" instance list
H escapes/instance-list-wide any "$s/empty-stdin" "$sc" instance list -o simple
H escapes/network-list 0 "$s/empty-stdin" "$sc" network list
H escapes/instance-show any "$s/empty-stdin" "$sc" instance show hsvm
H escapes/metadata any "$s/empty-stdin" "$sc" instance get-metadata hsvm
SHAKENFIST_API_URL="$hapi" run escapes/not-found any "$s/empty-stdin" "$sc" instance show hostilemark-nosuch
SHAKENFIST_API_URL="$hapi" run escapes/events any "$s/empty-stdin" "$sc" instance events hsvm
H escapes/debug-non-json any "$s/empty-stdin" "$sc" api GET /hostile-text --debug
H escapes/api-non-json any "$s/empty-stdin" "$sc" api GET /hostile-text
H escapes/yaml any "$s/empty-stdin" "$sc" network list -o yaml
# On a terminal (script(1) gives the command a pty; its stdout is what the
# terminal got): piped, --jq strings and non-JSON bodies are the server's
# bytes by design, so these paths are tested where they are shown.
T() {
	local name=$1 allow=$2
	shift 2
	if ! command -v script >/dev/null; then
		skip "$name" "no script(1) for a pty"
		return
	fi
	SHAKENFIST_API_URL="$hapi" check=${check-saw_hostile} run "$name" "$allow" "$s/empty-stdin" \
		script -q -e -c "$(printf '%q ' "$@")" "$s/out/$name.typescript"
}
T escapes/tty-jq-string any "$sc" instance list --jq '.[].name'
T escapes/tty-json any "$sc" instance list -o json
# The table fits the terminal's width, cutting the name: no check that the
# text arrived, only that nothing raw did.
check= T escapes/tty-table any "$sc" instance list
T escapes/tty-debug-non-json any "$sc" api GET /hostile-text --debug
T escapes/tty-api-non-json any "$sc" api GET /hostile-text
H escapes/columns any "$s/empty-stdin" "$sc" instance list -o columns=NAME,STATE
SHAKENFIST_API_URL="$rapi" check=saw_hostile run escapes/507-stage "69|75|124" "$s/empty-stdin" "$sc" instance create hse1 1 1024 -d 8@debian:12 --retry-transient-capacity --timeout 3s
SHAKENFIST_API_URL="$rapi" check=saw_hostile run escapes/507-hint "69|75" "$s/empty-stdin" "$sc" instance create hse2 1 1024 -d 8@debian:12
check=saw_hostile run escapes/router-other "0|3" "$s/empty-stdin" "$sc" parking-probe --target "$hrouter" --mode burst --requests 5 --actors 2 --seed 1
T escapes/tty-router-other "0|3" "$sc" parking-probe --target "$hrouter" --mode burst --requests 5 --actors 2 --seed 1
T escapes/tty-router-other-json "0|3" "$sc" parking-probe --target "$hrouter" --mode burst --requests 5 --actors 2 --seed 1 -o json
T escapes/tty-merge-target "0|3" "$sc" parking-probe merge "$s/in/report.hostile"
check=saw_hostile run escapes/merge-target "0|3" "$s/empty-stdin" "$sc" parking-probe merge "$s/in/report.hostile"
check=saw_hostile run escapes/merge-target-stdin "0|3" "$s/in/report.hostile" "$sc" parking-probe merge -
# Every stderr path, not only the client's. wrap and
# proxy in front of the refusing cluster print its escape-laden stage in
# their retry lines; the simulator's request log quotes a client's path.
SHAKENFIST_API_URL="$rapi" check=saw_hostile run escapes/wrap-stage "69|75" "$s/empty-stdin" "$sc" wrap --budget 2s -- "$sc" instance create hsw1 1 1024 -d 8@debian:12
# proxy_case: `shakectl proxy` in front of the refusing cluster, one create
# through it, then Ctrl-C; the case's stderr is the proxy's alone.
proxy_case() {
	local p u
	"$sc" proxy --budget 2s >"$s/proxy.url" &
	p=$!
	for _ in $(seq 100); do
		grep -q http "$s/proxy.url" 2>/dev/null && break
		sleep 0.1
	done
	u=$(head -n1 "$s/proxy.url")
	SHAKENFIST_API_URL="$u" "$sc" instance create hsp1 1 1024 -d 8@debian:12 >/dev/null 2>&1 || true
	kill -INT "$p"
	wait "$p"
}
export -f proxy_case
export s sc
SHAKENFIST_API_URL="$rapi" check=saw_hostile run escapes/proxy-stage 130 "$s/empty-stdin" bash -c proxy_case
# --- proxyhard: the proxy's front door --------------------------------------
# A foreign Host (DNS rebinding) is a 403, CONNECT a 405, neither
# forwarded; --budget 0 is a usage error. The case's stdout is the two
# status codes curl saw.
proxy_front_case() {
	local p u
	"$sc" proxy >"$s/proxyfront.url" 2>/dev/null &
	p=$!
	for _ in $(seq 100); do
		grep -q http "$s/proxyfront.url" 2>/dev/null && break
		sleep 0.1
	done
	u=$(head -n1 "$s/proxyfront.url")
	curl -s -o /dev/null -w '%{http_code} ' -H 'Host: evil.example' "$u/instances" || true
	curl -s -o /dev/null -w '%{http_code}\n' -X CONNECT --request-target upstream.example:443 "$u" || true
	kill -INT "$p"
	wait "$p"
}
export -f proxy_front_case
front_refused() { grep -qx '403 405' "$1/stdout" || echo "want 403 and 405, curl saw: $(head -c 80 "$1/stdout")"; }
SHAKENFIST_API_URL="$rapi" check=front_refused run proxyfront/host-and-connect 130 "$s/empty-stdin" bash -c proxy_front_case
SHAKENFIST_API_URL="$rapi" run proxyfront/budget-0 2 "$s/empty-stdin" "$sc" proxy --budget 0
# --- end proxyhard --------------------------------------------------------
# A path of escapes, percent-encoded as a client may send it, into the
# simulators' logs.
curl -g -s -o /dev/null "$rapi/instances/%1b]0;PWNED%07%1b[2K%0dFAKE" || true
curl -g -s -o /dev/null "$router/%1b]0;PWNED%07%1b[2K%0dFAKE" || true
# logcase NAME FILE: the escape check over a server's stderr so far.
logcase() {
	local d="$s/out/$1" why
	mkdir -p "$d"
	cp "$2" "$d/stderr"
	: >"$d/stdout"
	why=$(hazards "$d")
	if [ -z "$why" ] && [ -n "${check:-}" ]; then why=$($check "$d" || true); fi
	if [ -n "$why" ]; then line FAIL "$1" "$why" - - ""; else line PASS "$1" "$(wc -l <"$2") lines of stderr" 0 - ""; fi
}
check=saw_hostile logcase escapes/sim-cluster-log "$s/refusing.err"
logcase escapes/sim-router-log "$s/router.err"
logcase escapes/sim-cluster-quiet-log "$s/cluster.err"
# Downloads' and uploads' progress bars on a terminal, and their closing
# lines, name a path: one holding escapes is shown, not obeyed. The bar's
# own \r and ESC [K are the only controls allowed.
# script(1) runs its command with $SHELL, which may be dash: dash drops
# bash's exported functions from the environment, so the case is a file.
cat >"$s/prog_case.sh" <<'PROG'
"$sc" artifact upload hsprog "$hp" &&
	"$sc" artifact download hsimg "$hp.dl" &&
	"$sc" instance download hsvm /tmp/hs-dl "$hp.idl"
PROG
hp="$s/o/prog/hs$(printf '\033]0;PWNED\007\033[2K\rFAKE\302\233')"
mkdir -p "$s/o/prog"
cp "$s/in/userdata.real" "$hp"
export hp
if command -v script >/dev/null; then
	SHAKENFIST_API_URL="$api" check=saw_hostile run escapes/tty-transfer-progress 0 "$s/empty-stdin" \
		script -q -e -c "bash $(printf '%q' "$s/prog_case.sh")" "$s/out/escapes/tty-transfer-progress.typescript"
else
	skip escapes/tty-transfer-progress "no script(1) for a pty"
fi

echo "## [${SECONDS}s] errors: what a failure says, and completion's candidates"
# says DIR: the case's stderr must hold $want.
says() { grep -aqF -- "$want" "$1/stderr" || echo "stderr does not say '$want': $(first_error "$1")"; }
SHAKENFIST_API_URL="$hapi" want='an answer larger than 64 KiB, the most shakectl reads of it' check=says \
	run errors/error-body-over-64k 1 "$s/empty-stdin" "$sc" api GET /big-error
SHAKENFIST_API_URL="$hapi" want='the POST may have taken effect on the server before the connection broke' check=says \
	run errors/post-reset 1 "$s/empty-stdin" "$sc" api POST /reset -F name=hsreset
SHAKENFIST_API_URL="$eapi" want='Retry-After "" empty, the 15s default used' check=says \
	run errors/empty-retry-after 75 "$s/empty-stdin" "$sc" wrap --budget 2s -- "$sc" instance create hsra 1 1024 -d 8@debian:12
# TAB completion of names from a hostile server: the instance whose name
# holds escapes is not offered (it would show another name than the one
# completed); hsvm is.
offered() {
	# A candidate is "NAME<TAB>description".
	grep -aqE '^hsvm([[:space:]]|$)' "$1/stdout" || { echo "hsvm was not offered: $(printable "$(head -c 200 "$1/stdout")")"; return; }
	if grep -aqF PWNED "$1/stdout"; then echo "the escape-laden name was offered"; fi
}
SHAKENFIST_API_URL="$hapi" check=offered run escapes/completion-names 0 "$s/empty-stdin" "$sc" __complete instance show ''

echo "## [${SECONDS}s] numbers and deadlines: every number in its flag's range, every deadline exit 124"
# names_range: the refusal names the flag's range, and nothing started.
names_range() {
	grep -aqE 'want (a|an) [a-z ]+ (from|more than) ' "$1/stderr" || echo "refused without naming the range: $(first_error "$1")"
	grep -aq . "$1/stdout" && echo "printed on stdout: $(printable "$(head -c 200 "$1/stdout")")"
}
# 100000 CPUs ended in "fatal error: thread exhaustion", 1.2 million lines
# of stack and 2.4 GB.
check=names_range run numbers/procs-100000 2 "$s/empty-stdin" "$sc" parking-probe --target "$router" --procs 100000 --requests 1
check=names_range run numbers/threshold-NaN 2 "$s/empty-stdin" "$sc" node cpuhogs --threshold NaN
check=names_range run numbers/threshold-Inf 2 "$s/empty-stdin" "$sc" node cpuhogs -t +Inf
check=names_range run numbers/rate-NaN 2 "$s/empty-stdin" "$sc" parking-probe --target "$router" --mode open --rate NaN --duration 1s
check=names_range run numbers/timeout-negative 2 "$s/empty-stdin" "$sc" instance list --timeout -1s
check=names_range run numbers/workers-huge 2 "$s/empty-stdin" "$sc" sim router --listen 127.0.0.1:0 --workers 9223372036854775807
check=names_range run numbers/retry-wait-negative 2 "$s/empty-stdin" "$sc" wrap --retry-wait -1s -- true
if [ $quick = 0 ]; then
	check=names_range run numbers/replay-memory-negative 2 "$s/empty-stdin" "$sc" proxy --replay-memory -1
	check=names_range run numbers/length-huge 2 "$s/empty-stdin" "$sc" instance consoledata hsvm --length 1e300
	check=names_range run numbers/cpu-overcommit-Inf 2 "$s/empty-stdin" "$sc" sim cluster --listen 127.0.0.1:0 --cpu-overcommit Inf
	check=names_range run numbers/request-timeout-NaN 2 "$s/empty-stdin" env SHAKECTL_REQUEST_TIMEOUT=NaN "$sc" instance list
fi
# A Kerbside that never answers (item 7: exit 1 and Go's raw text): a
# Kerbside sim behind the hostile proxy, whose /kerbside/ never answers.
start kerbsim "$sc" sim cluster --listen 127.0.0.1:0 --auth-key "$key" --quiet --kerbside --create-time 0s
start kerbhostile "$s/hostile" -upstream "$(grep -o -m1 'http://127[^ ]*' "$s/kerbsim.out")"
kapi=$(url_of kerbhostile api)
SHAKENFIST_API_URL="$kapi" "$sc" instance create hskvm 1 1024 -d 8@debian:12 --async block -o json >/dev/null 2>"$s/in/hskvm.err" ||
	{ echo "could not create the instance hskvm:" >&2; printable "$(cat "$s/in/hskvm.err")" >&2; exit 1; }
# kerbside_deadline FLAG DIR: the one line names the Kerbside request and the bound.
kerbside_deadline() {
	grep -aqE "^error: GET http://127[^ ]*/kerbside/sf-console.vv\?token=\[redacted\]: no answer within 2s \($1" "$2/stderr" ||
		echo "not the deadline's line: $(first_error "$2")"
}
kerbside_timeout() { kerbside_deadline --timeout "$1"; }
kerbside_request() { kerbside_deadline --request-timeout "$1"; }
SHAKENFIST_API_URL="$kapi" check=kerbside_timeout run deadlines/kerbside-timeout 124 "$s/empty-stdin" "$sc" instance vdiconsolefile hskvm - --timeout 2s
[ $quick = 0 ] && SHAKENFIST_API_URL="$kapi" check=kerbside_request run deadlines/kerbside-request-timeout 124 "$s/empty-stdin" "$sc" instance vdiconsolefile hskvm - --request-timeout 2s
# A download to a FIFO nobody reads waits for a reader within --timeout and
# ends as every wait ends: 124, naming what it waited for (it was exit 1).
mkfifo "$s/in/noreader"
fifo_deadline() {
	grep -aqF "no reader opened the FIFO: no answer within 2s (--timeout)" "$1/stderr" ||
		echo "not the deadline's line: $(first_error "$1")"
	[ -p "$s/in/noreader" ] || echo "the FIFO was replaced"
}
check=fifo_deadline run deadlines/fifo-no-reader 124 "$s/empty-stdin" "$sc" artifact download hsimg "$s/in/noreader" --timeout 2s

echo "## [${SECONDS}s] scope and answers: a delete of many without an explicit scope, a console route's null"
# The system key (this script's) with no namespace, or "system", which the
# server reads as every namespace: exit 2 before anything is sent, and hsvm
# is still there afterwards.
hsvm_kept() {
	says "$1" || return 0
	"$sc" instance show hsvm -o json >/dev/null 2>&1 || echo "hsvm is gone: the delete went out"
}
for a in "instance delete-all --yes" "network delete-all --yes" "instance delete-all --namespace system --yes" "namespace clean system --yes"; do
	# shellcheck disable=SC2086 # the words of the command
	want='nothing was sent' check=hsvm_kept run "scope/${a// /_}" 2 "$s/empty-stdin" "$sc" $a
done
# hsnull's console routes answer 200 null (the hostile proxy plays the
# recorded 2024 answer): an error (exit 1) with nothing on stdout, nothing
# written, no viewer started.
nothing_out() {
	says "$1" || return 0
	[ ! -s "$1/stdout" ] || echo "printed $(printable "$(head -c 80 "$1/stdout")")"
	[ -z "$(ls -A "$s/o/null-vv")" ] || echo "wrote $(ls -A "$s/o/null-vv")"
	[ ! -e "$s/o/viewer-ran" ] || echo "started the viewer"
}
mkdir -p "$s/o/null-vv"
printf '#!/bin/sh
touch %q
' "$s/o/viewer-ran" >"$s/o/viewer"
chmod +x "$s/o/viewer"
for a in "instance consoledata hsnull" "instance vdiconsolefile hsnull -" "instance vdiconsolefile hsnull $s/o/null-vv" "instance vdiconsole hsnull --viewer $s/o/viewer"; do
	# shellcheck disable=SC2086 # the words of the command
	n=${a%% "$s"*}
	SHAKENFIST_API_URL="$hapi" want='the server answered 200 with null' check=nothing_out run "answers/${n// /_}" 1 "$s/empty-stdin" "$sc" $a
done

echo "## [${SECONDS}s] signals: Ctrl-C (130) and SIGTERM (143) within a second"
sigs=(INT TERM)
[ $quick = 1 ] && sigs=(INT)
long() {
	local name=$1 in=$2
	shift 2
	local g w
	for g in "${sigs[@]}"; do
		w=130
		[ "$g" = TERM ] && w=143
		sig "signal/$name/$g" "$g" "$w" "$in" "$@"
	done
}
simwant() { [ "$1" = INT ] && echo "0|130" || echo "0|143"; }
long key-stdin-fifo "$s/in/fifo" "$sc" context create hssig --api-url "$api" --namespace system --key-stdin
[ $quick = 0 ] && long api-input-fifo "$s/in/fifo" "$sc" api POST /networks --input -
[ $quick = 0 ] && long user-data-fifo "$s/empty-stdin" "$sc" instance create hssig 1 1024 -d 8@debian:12 -u "$s/in/fifo"
[ $quick = 0 ] && long config-fifo "$s/empty-stdin" "$sc" config view --config "$s/in/fifo"
long merge-stdin-fifo "$s/in/fifo" "$sc" parking-probe merge -
# wrap relays a signal sent to it to its command once (the Ctrl-C typed at a
# terminal is TestWrapRelaysCtrlCOnceOnATerminal's, under a pty). setsid: no
# controlling terminal, whatever runs the script.
long wrap-relay "$s/empty-stdin" setsid "$sc" wrap -- sleep 30

# wrap killed with SIGKILL takes its command with it
# (Linux: a parent-death signal). The command (sh exec'ing sleep: one PID)
# prints its PID; wrap is SIGKILLed; the command must be gone (or a zombie
# nobody reaped) within 5 s. Both PIDs are this script's own and are ended
# here (not in cleanup: once gone, their PIDs may be another's): wrap by
# the case itself, a command still running by the failure.
wrap_killed() {
	local name=wrap/sigkill-ends-command d="$s/out/wrap-sigkill" wpid child="" st why="" t0 ms
	mkdir -p "$d"
	"$sc" wrap -- sh -c 'echo "pid $$"; exec sleep 30' <"$s/empty-stdin" >"$d/stdout" 2>"$d/stderr" &
	wpid=$!
	for _ in $(seq 100); do
		child=$(sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$d/stdout" 2>/dev/null || true)
		[ -n "$child" ] && break
		sleep 0.1
	done
	if [ -z "$child" ]; then
		kill -KILL "$wpid" 2>/dev/null || true
		wait "$wpid" 2>/dev/null || true
		line FAIL "$name" "the command printed no PID: $(first_error "$d")" - - ""
		return
	fi
	t0=$(date +%s%N)
	kill -KILL "$wpid"
	wait "$wpid" 2>/dev/null || true
	# A bounded wait for the command's exit: gone, or a zombie (Z).
	for _ in $(seq 50); do
		st=$(ps -o stat= -p "$child" 2>/dev/null | tr -d ' ' || true)
		[ -z "$st" ] || [ "${st#Z}" != "$st" ] && break
		sleep 0.1
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ -n "$st" ] && [ "${st#Z}" = "$st" ]; then
		why="its command (PID $child) still runs 5 s after wrap was SIGKILLed"
		kill -KILL "$child" 2>/dev/null || true
	fi
	if [ -n "$why" ]; then
		line FAIL "$name" "$why" 137 "$ms" ""
	else
		line PASS "$name" "command gone ${ms} ms after wrap's SIGKILL" 137 "$ms" ""
	fi
}
if [ "$(uname -s)" = Linux ]; then wrap_killed; else skip wrap/sigkill-ends-command "no parent-death signal on $(uname -s)"; fi
# --gate's value as a word of its own is the gate's, not
# the command (it ran a command named "off", exit 127); a true/false
# flag's separate value is refused, not run as the command "false".
run wrap/gate-off-word 0 "$s/empty-stdin" "$sc" wrap --gate off -- true
run wrap/bool-value-word 2 "$s/empty-stdin" "$sc" wrap --quiet false -- true
early="1|2" long merge-stdin-zero /dev/zero "$sc" parking-probe merge -
# An open run at 100,000/s on two cores keeps a goroutine for every
# scheduled request it cannot send yet, about 6 KiB each: the faster the
# machine, the more are scheduled by the signal (76-94k on a quiet one,
# 475-592 MiB; bench/results-hostile.md): its bound is 768 MiB, where every
# other case keeps to $rss_limit_mib.
rss_mib=768 note="an open run far beyond what the machine can send" long probe-open-100k "$s/empty-stdin" "$sc" parking-probe --target "$router" --mode open --rate 100000 --duration 30s --actors 10 --seed 1
[ $quick = 0 ] && long probe-closed "$s/empty-stdin" "$sc" parking-probe --target "$router" --mode closed --duration 30s --actors 10 --seed 1
if [ $quick = 0 ]; then
	long proxy "$s/empty-stdin" "$sc" proxy --listen 127.0.0.1:0
	# Waiting out transient 507s (Retry-After 1) between attempts.
	long retry-wait "$s/empty-stdin" env SHAKENFIST_API_URL="$rapi" "$sc" instance create hssig2 1 1024 -d 8@debian:12 --retry-transient-capacity --timeout 60s
	long key-file-fifo "$s/in/fifo" "$sc" namespace add-key system hssig --key-file -
fi
for g in "${sigs[@]}"; do
	w=$(simwant "$g")
	sig "signal/sim-router/$g" "$g" "$w" "$s/empty-stdin" "$sc" sim router --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0
	[ $quick = 0 ] && sig "signal/sim-router-100k-workers/$g" "$g" "$w" "$s/empty-stdin" "$sc" sim router --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0 --workers 100000
	sig "signal/sim-cluster/$g" "$g" "$w" "$s/empty-stdin" "$sc" sim cluster --listen 127.0.0.1:0
done
early=2 sig signal/sim-router-1e9-workers INT "0|130" "$s/empty-stdin" "$sc" sim router --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --status-listen 127.0.0.1:0 --workers 1000000000

echo "# [${SECONDS}s] $npass passed, $nfail failed, $nskip skipped; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if ((nfail)); then
	printf '# failed: %s\n' "${failed[*]}"
	exit 1
fi
