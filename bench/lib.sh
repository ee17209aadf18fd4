# Sourced by the bench scripts (after `cd` to the repository): a temporary
# directory $tmp, removed on exit after the background processes the script
# started as `cmd & pids+=($!)` are stopped; and wait_http URL, which waits
# up to 5 s for URL to answer.
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
# raise_nofile N raises this shell's open-file limit (inherited by the
# router and the probe it starts) to N, or to the hard limit when that is
# lower. The probe no longer raises its own limit (a library sets no
# process state); it warns when a run needs more than it has.
raise_nofile() {
  local soft hard; soft=$(ulimit -Sn) hard=$(ulimit -Hn)
  if [ "$soft" = unlimited ] || [ "$soft" -ge "$1" ]; then :
  elif [ "$hard" != unlimited ] && [ "$hard" -lt "$1" ]; then ulimit -n "$hard"
  else ulimit -n "$1"; fi
  echo "# open-file limit $(ulimit -n)"
}
wait_http() { for _ in $(seq 50); do curl -sf -o /dev/null "$1" && break; sleep 0.1; done; }
# wait_timewait PORT waits (up to 70 s) until fewer than 1,000 sockets to or
# from PORT are in TIME_WAIT. A load tester that falls behind opens a
# connection per late request (vegeta at 16,000/s left 12,000-19,000); the
# next run then fails to bind a local port ("bind: address already in use")
# and is judged on the previous run's leftovers, not on its own. Only the
# script's own server port is counted: on a machine shared with other
# engineers' tests, their sockets kept the total above 1,000 for minutes
# and every rung waited out the full 70 s for sockets it never made.
wait_timewait() {
  local n
  for _ in $(seq 140); do
    n=$(ss -tan state time-wait "( dport = :$1 or sport = :$1 )" 2>/dev/null | tail -n +2 | wc -l)
    [ "$n" -lt 1000 ] && return 0
    sleep 0.5
  done
}
