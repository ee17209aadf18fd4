package retry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The cases a proxy must get right: only the server's own JSON true, with a
// real stage, on a 507, is replayed.
func TestClassifyRefusal(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		stage     string
		transient bool
	}{
		{"the contract's transient refusal", 507, `{"error":"no idle cpu","status":507,"stage":"sufficient_idle_cpu","transient":true}`, "sufficient_idle_cpu", true},
		{"capacity guard", 507, `{"error":"guard","status":507,"stage":"capacity_guard","transient":true}`, "capacity_guard", true},
		{"whitespace around", 507, " \n{\"stage\":\"queue_state\",\"transient\":true}\n", "queue_state", true},
		{"structural stage", 507, `{"error":"too big","status":507,"stage":"cpu_max_per_instance","transient":false}`, "cpu_max_per_instance", false},
		{"CongestedNetwork: no stage or transient", 507, `{"error":"Network is congested","status":507}`, "", false},
		// The field is the gate, whatever the stage says (client-python
		// 74d6e129 retries these too).
		{"transient without a stage", 507, `{"error":"No nodes remaining at scheduling stage sufficient_idle_cpu","status":507,"transient":true}`, "", true},
		{"stage unknown", 507, `{"error":"x","status":507,"stage":"unknown","transient":true}`, "unknown", true},
		{"transient as a string", 507, `{"stage":"sufficient_idle_cpu","transient":"true"}`, "sufficient_idle_cpu", false},
		{"transient as a number", 507, `{"stage":"sufficient_idle_cpu","transient":1}`, "sufficient_idle_cpu", false},
		{"transient null", 507, `{"stage":"sufficient_idle_cpu","transient":null}`, "sufficient_idle_cpu", false},
		{"stage not a string", 507, `{"stage":7,"transient":true}`, "", true},
		{"transient false", 507, `{"stage":"sufficient_idle_cpu","transient":false}`, "sufficient_idle_cpu", false},
		{"HTML 507 from a proxy", 507, `<html><title>507 Insufficient Storage</title>"transient": true</html>`, "", false},
		{"plain text", 507, `transient: true`, "", false},
		{"truncated JSON", 507, `{"stage":"sufficient_idle_cpu","transient":tr`, "", false},
		{"a JSON array", 507, `[{"stage":"sufficient_idle_cpu","transient":true}]`, "", false},
		{"two objects", 507, `{"stage":"sufficient_idle_cpu","transient":true}{}`, "", false},
		{"empty body", 507, ``, "", false},
		{"503 with a transient body", 503, `{"stage":"sufficient_idle_cpu","transient":true}`, "", false},
		{"409 affinity", 409, `{"error":"no node satisfies","status":409}`, "", false},
		{"200", 200, `{"stage":"sufficient_idle_cpu","transient":true}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{"Retry-After": {"15"}}
			stage, transient := ClassifyRefusal(tt.status, h, []byte(tt.body))
			if stage != tt.stage || transient != tt.transient {
				t.Errorf("ClassifyRefusal(%d, %q) = (%q, %v), want (%q, %v)", tt.status, tt.body, stage, transient, tt.stage, tt.transient)
			}
		})
	}
}

// FuzzClassifyRefusal checks the invariants on any body: only a 507 whose
// body decodes to an object with the literal true is transient, the stage
// is the body's own, and the classifier never panics.
func FuzzClassifyRefusal(f *testing.F) {
	for _, s := range []string{
		`{"error":"x","status":507,"stage":"sufficient_idle_cpu","transient":true}`,
		`{"stage":"unknown","transient":true}`, `{"transient":true}`, `{"stage":"a","transient":"true"}`,
		`<html>"transient": true</html>`, `{"stage":"a","transient":true`, `[]`, `null`, ``, "\x00{",
		`{"stage":"a","transient":true,"transient":false}`, `{"stage":"a","stage":"unknown","transient":true}`,
		`{"stage":"\u0000","transient":true}`, `{"stage":"a","transient":TRUE}`,
	} {
		f.Add(507, s)
		f.Add(200, s)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		stage, transient := ClassifyRefusal(status, nil, []byte(body))
		if !transient {
			return
		}
		if status != 507 {
			t.Fatalf("status %d classified transient", status)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.TrimSpace([]byte(body)), &m); err != nil {
			t.Fatalf("transient body %q is not a JSON object: %v", body, err)
		}
		if m["transient"] != true {
			t.Fatalf("transient body %q has transient %v", body, m["transient"])
		}
		if s, _ := m["stage"].(string); s != stage {
			t.Fatalf("transient body %q: stage %q, decoded %v", body, stage, m["stage"])
		}
	})
}

// Policy.Wait replaces the server's hint, clamped, and is cut to the budget.
func TestPolicyWaitOverride(t *testing.T) {
	body := `{"error":"x","status":507,"stage":"sufficient_idle_cpu","transient":true}`
	for _, tt := range []struct {
		wait, budget, want time.Duration
	}{
		{0, time.Hour, 15 * time.Second},
		{2 * time.Second, time.Hour, 2 * time.Second},
		{10 * time.Millisecond, time.Hour, MinWait},
		{time.Hour, time.Hour, MaxWait},
		{30 * time.Second, 5 * time.Second, 5 * time.Second},
	} {
		var got []Notice
		c := Policy{Enabled: true, Method: "POST", Path: "/instances", Budget: tt.budget, Wait: tt.wait, Classify: ClassifyRefusal, Notify: func(n Notice) { got = append(got, n) }}.NewCall()
		resp := &http.Response{StatusCode: 507, Header: http.Header{"Retry-After": {"15"}}, Body: io.NopCloser(strings.NewReader(body))}
		again, _ := c.CheckRetry(context.Background(), resp, nil)
		if !again {
			t.Fatalf("Wait %s: not retried", tt.wait)
		}
		w := c.Backoff(0, 0, 0, resp)
		// The budget is measured from NewCall; a few microseconds pass.
		if w > tt.want || w < tt.want-time.Second {
			t.Errorf("Wait %s, budget %s: waited %s, want %s", tt.wait, tt.budget, w, tt.want)
		}
		if len(got) != 1 || got[0].Wait != w {
			t.Errorf("notices %v", got)
		}
	}
}

// A notice about someone else's request names it; shakectl's own do not.
func TestNoticeNamesTheRequest(t *testing.T) {
	n := Notice{Stage: "capacity_guard", Wait: 15 * time.Second, Attempt: 2, Max: 5, Left: 45 * time.Second, Method: "POST", Path: "/api/instances"}
	if got, want := n.String(), "POST /api/instances: capacity refused at stage capacity_guard (transient); retrying in 15s (attempt 2/5, 45s left)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := n.JSON(), `{"event":"retry","method":"POST","path":"/api/instances","stage":"capacity_guard","wait_seconds":15,"attempt":2,"max_attempts":5,"left_seconds":45,"message":"POST /api/instances: capacity refused at stage capacity_guard (transient); retrying in 15s (attempt 2/5, 45s left)"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	n.Method, n.Path = "", ""
	if strings.Contains(n.JSON(), "method") || strings.HasPrefix(n.String(), ":") {
		t.Errorf("own notice names a request: %s / %s", n.String(), n.JSON())
	}
}

// A transient refusal without a stage reads without an empty "at stage".
func TestNoticeWithoutAStage(t *testing.T) {
	n := Notice{Wait: 15 * time.Second, Attempt: 2, Max: 5, Left: 45 * time.Second}
	if got, want := n.String(), "capacity refused (transient); retrying in 15s (attempt 2/5, 45s left)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
