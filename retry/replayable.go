package retry

import (
	"net/http"
	"strings"
)

// Route is a method and an API path, relative to the API root (no /api
// prefix, no query); "*" as Path stands for every path.
type Route struct {
	Method, Path string
	// Why this route's replay cannot double an effect, for the
	// documentation.
	Why string
}

// ReplayableRoutes is the one list of the requests a transient capacity
// refusal may replay, for shakectl's own calls (--retry-transient-capacity)
// and for the calls `shakectl proxy` and `wrap` forward alike (client-python#420,
// filed from the shakenfist transient-capacity-refusals push audit, finding
// 9: "The transient marker is an unqualified remote replay trigger …
// send_upload() passes already-read bytes … a replay there could append a
// chunk twice"). The marker says waiting may help; only this list says a
// replay is safe. Everything else marked transient is handed back as it
// came, with the exit code it has without the retry.
//
//   - POST /instances is the one request the contract names (seed 004:
//     "the POST /instances request fails with an HTTP 507"; the server's
//     two capacity_error() call sites, external_api/base.py @565e36e6e, are
//     both the scheduler's refusal of an instance create). A refused create
//     holds no capacity (the ledger's charge is rolled back with the
//     placement) and its record is reaped by the server, so its replay is a
//     new attempt, not a second instance.
//   - GET and HEAD read and change nothing (RFC 9110 9.2.1, safe methods):
//     no 507 of the server is marked on them today, and replaying one
//     cannot double anything.
//
// Not on it, whatever the marker says: an upload chunk (POST
// /upload/{uuid} appends, and a chunk refused with a 507 may already have
// been appended: client-python docs/transient-capacity-retry.md @74d6e129,
// "Anything which appends or mutates -- send_upload(), whose natural
// refusal is also a 507 -- must not be marked without making the replay
// safe first"), deletes, claims (POST /auth/namespaces/{ns}/claims answers
// an unmarked 507 of its own), power actions, and every other call.
var ReplayableRoutes = []Route{
	{Method: http.MethodPost, Path: "/instances", Why: "instance create, the request the capacity contract names"},
	{Method: http.MethodGet, Path: "*", Why: "a read"},
	{Method: http.MethodHead, Path: "*", Why: "a read"},
}

// ReplayableText names ReplayableRoutes in a line of help.
const ReplayableText = "POST /instances (instance create) and reads (GET, HEAD)"

// Replayable says whether a transient refusal of method on path (relative
// to the API root: "/instances", not "/api/instances") may be replayed.
func Replayable(method, path string) bool {
	method = strings.ToUpper(strings.TrimSpace(method))
	path = APIPath(path)
	for _, r := range ReplayableRoutes {
		if r.Method == method && (r.Path == "*" || r.Path == path) {
			return true
		}
	}
	return false
}

// APIPath is path as Replayable compares it: no query or fragment, one
// leading slash, no trailing one.
func APIPath(path string) string {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	path = "/" + strings.Trim(path, "/")
	return path
}

// NotReplayable is the reason a transient refusal of method on path was
// handed back rather than replayed, for the line and the hint.
func NotReplayable(method, path string) string {
	return strings.ToUpper(method) + " " + APIPath(path) + " is not a call a replay cannot double: only " + ReplayableText + " are replayed"
}
