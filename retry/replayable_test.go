package retry

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// client-python#420: the marker alone does not make a replay safe. Only
// an instance create and reads are replayed; an upload chunk, a delete
// and every other call marked transient are not.
func TestReplayableRoutes(t *testing.T) {
	for _, tt := range []struct {
		method, path string
		want         bool
	}{
		{"POST", "/instances", true},
		{"post", "instances", true},
		{"POST", "/instances/", true},
		{"POST", "/instances?x=1", true},
		{"GET", "/instances", true},
		{"GET", "/blobs/0c4a3c9e/data?offset=10", true},
		{"HEAD", "/", true},
		{"POST", "/upload/0c4a3c9e-8e1f-4b8e-9a51-2b7c3d4e5f60", false},
		{"POST", "/upload", false},
		{"POST", "/upload/0c4a3c9e/truncate/10", false},
		{"DELETE", "/instances", false},
		{"DELETE", "/instances/web1", false},
		{"PUT", "/instances", false},
		{"POST", "/instances/web1/poweron", false},
		{"POST", "/auth/namespaces/ci/claims", false},
		{"POST", "/artifacts/upload/img", false},
		{"POST", "/networks", false},
		{"", "/instances", false},
		{"POST", "", false},
	} {
		if got := Replayable(tt.method, tt.path); got != tt.want {
			t.Errorf("Replayable(%q, %q) = %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

// A transient refusal of a call not on the list ends the call with that
// refusal, its body unread by anyone but the classifier; on the list it is
// retried.
func TestCheckRetryReplaysOnlyTheList(t *testing.T) {
	body := `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`
	for _, tt := range []struct {
		method, path string
		want         bool
	}{
		{"POST", "/instances", true},
		{"GET", "/instances", true},
		{"POST", "/upload/u1", false},
		{"DELETE", "/instances/web1", false},
		{"", "", false}, // a Policy that does not say what it sends
	} {
		var logged []string
		c := Policy{Enabled: true, Method: tt.method, Path: tt.path, Budget: 60e9, Classify: ClassifyRefusal,
			Log: func(s string) { logged = append(logged, s) }}.NewCall()
		resp := &http.Response{StatusCode: 507, Header: http.Header{"Retry-After": {"15"}}, Body: io.NopCloser(strings.NewReader(body))}
		again, err := c.CheckRetry(context.Background(), resp, nil)
		if again != tt.want || err != nil {
			t.Errorf("%s %s: retried %v (%v), want %v", tt.method, tt.path, again, err, tt.want)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != body {
			t.Errorf("%s %s: the body left for the caller is %q", tt.method, tt.path, b)
		}
		if !tt.want && (len(logged) != 1 || !strings.Contains(logged[0], "is not a call a replay cannot double")) {
			t.Errorf("%s %s: debug lines %q", tt.method, tt.path, logged)
		}
	}
}

// The help's one-line text names every route of the list.
func TestReplayableTextNamesTheList(t *testing.T) {
	for _, r := range ReplayableRoutes {
		want := r.Method
		if r.Path != "*" {
			want += " " + r.Path
		}
		if !strings.Contains(ReplayableText, want) {
			t.Errorf("ReplayableText %q does not name %q", ReplayableText, want)
		}
	}
}
