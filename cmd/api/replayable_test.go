package api_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// client-python#420: --retry-transient-capacity replays a refusal marked
// transient only on the calls a replay cannot double (retry.
// ReplayableRoutes): an instance create and reads. An upload chunk (which
// may already have been appended), a delete and any other call get the
// server's refusal at once, its body as sent, exit 75, exactly as without
// the flag.
func TestRetryTransientCapacityReplaysOnlySafeCalls(t *testing.T) {
	refusal := clitest.TransientRefusal("1")
	for _, tt := range []struct {
		method, path string
		replayed     bool
	}{
		{"POST", "/instances", true},
		{"GET", "/instances/web1", true},
		{"POST", "/upload/0c4a3c9e-8e1f-4b8e-9a51-2b7c3d4e5f60", false},
		{"DELETE", "/instances/web1", false},
		{"POST", "/instances/web1/poweron", false},
	} {
		for _, flag := range []bool{true, false} {
			name := tt.method + " " + tt.path
			if flag {
				name += " with the retry"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					fa := clitest.NewStubs(t)
					if flag && tt.replayed {
						fa.InTurn(tt.method, tt.path, refusal.Answer(), httpstub.String(200, `{"ok": true}`))
					} else {
						fa.Canned(tt.method, tt.path, refusal)
					}
					args := []string{"api", tt.method, tt.path}
					if flag {
						args = append(args, "--retry-transient-capacity")
					}
					start := time.Now()
					res := clitest.StubsInMemory(fa).Run(t, args...)
					took := time.Since(start)
					if flag && tt.replayed {
						if res.Code != 0 || fa.Count(tt.method, tt.path) != 2 || took != time.Second ||
							!strings.HasPrefix(res.Stderr, "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, ") || strings.Count(res.Stderr, "\n") != 1 {
							t.Errorf("want one wait of 1s and the second answer (%d requests, %s): %s", fa.Count(tt.method, tt.path), took, res)
						}
						return
					}
					// Handed back at once: one request, no wait, the
					// server's own body on stdout and exit 75.
					if res.Code != cmdutil.ExitCapacityTransient || fa.Count(tt.method, tt.path) != 1 || took != 0 {
						t.Fatalf("want the refusal at once, exit 75 (%d requests, %s): %s", fa.Count(tt.method, tt.path), took, res)
					}
					if res.Stdout != refusal.Body+"\n" {
						t.Errorf("stdout %q, want the server's body %q", res.Stdout, refusal.Body)
					}
					lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
					wantErr := "error: " + tt.method + " " + tt.path + ": 507 Insufficient Storage: schedule has no candidates at stage sufficient_idle_cpu"
					if len(lines) != 2 || lines[0] != wantErr {
						t.Fatalf("stderr %q, want first %q", res.Stderr, wantErr)
					}
					wantHint := "hint: the cluster is short of capacity at stage sufficient_idle_cpu right now; --retry-transient-capacity waits and retries as the server suggests"
					if !tt.replayed {
						wantHint = "hint: the server marks this refusal transient (stage sufficient_idle_cpu), but " + tt.method + " " + tt.path +
							" is not a call a replay cannot double: only POST /instances (instance create) and reads (GET, HEAD) are replayed, so --retry-transient-capacity does not retry it: check what the server holds before sending it again"
					}
					if lines[1] != wantHint {
						t.Errorf("hint\n%s\nwant\n%s", lines[1], wantHint)
					}
				})
			})
		}
	}
}
