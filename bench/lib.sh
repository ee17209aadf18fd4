# Sourced by the bench scripts (after `cd` to the repository): a temporary
# directory $tmp, removed on exit after the background processes the script
# started as `cmd & pids+=($!)` are stopped; and wait_http URL, which waits
# up to 5 s for URL to answer.
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
wait_http() { for _ in $(seq 50); do curl -sf -o /dev/null "$1" && break; sleep 0.1; done; }
