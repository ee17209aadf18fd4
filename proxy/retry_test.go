package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/retry"
)

const createBody = `{"name": "web-1", "cpus": 1, "memory": 1024, "disk": [{"size": 8, "base": "debian:12"}]}`

// The attempt cap: an API that never stops refusing is asked five times,
// four waits of the server's Retry-After, and the client is handed the
// fifth refusal exactly as the server sent it.
func TestAttemptCapHandsBackTheLastRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: time.Hour}, alwaysRefuse("7"))
		start := time.Now()
		got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody), "Authorization", "Bearer tok-123")
		if got.err != nil {
			t.Fatal(got.err)
		}
		if n := r.up.count(); n != retry.MaxAttempts {
			t.Fatalf("upstream got %d attempts, want %d", n, retry.MaxAttempts)
		}
		if el := got.at.Sub(start); el != 4*7*time.Second {
			t.Errorf("the call took %s, want 4 waits of 7s = 28s", el)
		}
		want := `{"error": "Insufficient Resources (attempt 5)", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}` + "\n"
		if got.status != 507 || string(got.body) != want || got.header.Get("X-Attempt") != "5" || got.header.Get("Retry-After") != "7" {
			t.Errorf("client got %d %q (X-Attempt %q), want the fifth refusal %q", got.status, got.body, got.header.Get("X-Attempt"), want)
		}
		for i, a := range r.up.got() {
			if string(a.body) != createBody || a.header.Get("Authorization") != "Bearer tok-123" || a.method != "POST" || a.path != "/instances" {
				t.Errorf("attempt %d: %s %s auth %q body %q: not the identical request", i+1, a.method, a.path, a.header.Get("Authorization"), a.body)
			}
		}
		if s := r.proxy.Summary(); s != (Summary{Requests: 1, Waited: 4, HandedBack: 1}) {
			t.Errorf("summary %+v", s)
		}
		checkGolden(t, "attempt-cap.txt", r.log.String())
	})
}

// The budget: each wait is min(Retry-After, what is left); the last one is
// shortened to the rest of the budget and then one more attempt is sent
// (client-python 74d6e129 _request_url: wait = min(retry_after, remaining)).
func TestBudgetShortensTheLastWaitThenOneMoreAttempt(t *testing.T) {
	tests := []struct {
		name       string
		budget     time.Duration
		retryAfter string
		waits      []time.Duration
	}{
		{"20s budget, 15s hint: 15s then 5s", 20 * time.Second, "15", []time.Duration{15 * time.Second, 5 * time.Second}},
		{"5s budget, 30s hint: one 5s wait", 5 * time.Second, "30", []time.Duration{5 * time.Second}},
		{"45s budget, 15s hint: three waits, four requests", 45 * time.Second, "15", []time.Duration{15 * time.Second, 15 * time.Second, 15 * time.Second}},
		{"hint over the cap is clamped to 60s", 2 * time.Minute, "86400", []time.Duration{60 * time.Second, 60 * time.Second}},
		{"hint 0 is raised to 1s", 3 * time.Second, "0", []time.Duration{time.Second, time.Second, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var waits []time.Duration
				r := newRig(t, Options{Budget: tt.budget, Notify: func(n retry.Notice) { waits = append(waits, n.Wait) }}, alwaysRefuse(tt.retryAfter))
				got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
				if got.status != 507 {
					t.Fatalf("status %d", got.status)
				}
				if !equalDurations(waits, tt.waits) {
					t.Errorf("waits %v, want %v", waits, tt.waits)
				}
				if n := r.up.count(); n != len(tt.waits)+1 {
					t.Errorf("%d attempts, want %d (one after the last wait)", n, len(tt.waits)+1)
				}
				att := r.up.got()
				for i := 1; i < len(att); i++ {
					if gap := att[i].at.Sub(att[i-1].at); gap != tt.waits[i-1] {
						t.Errorf("attempt %d came %s after the one before, want %s", i+1, gap, tt.waits[i-1])
					}
				}
			})
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Two refusals, then the create goes through: the client sees only the
// success, and every attempt was the identical request.
func TestRefusalsWaitedOutThenSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n <= 2 {
				refusal("capacity_guard", true, "15", n)(w)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"uuid": "a1", "state": "creating"}`)
		})
		start := time.Now()
		got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
		if got.status != 200 || string(got.body) != `{"uuid": "a1", "state": "creating"}` {
			t.Fatalf("client got %d %q", got.status, got.body)
		}
		if el := got.at.Sub(start); el != 30*time.Second {
			t.Errorf("took %s, want 30s", el)
		}
		if s := r.proxy.Summary(); s != (Summary{Requests: 1, Waited: 2, HandedBack: 0}) {
			t.Errorf("summary %+v", s)
		}
	})
}

// RetryWait replaces the server's hint and is still clamped.
func TestRetryWaitOverride(t *testing.T) {
	for _, tt := range []struct {
		set, want time.Duration
	}{{2 * time.Second, 2 * time.Second}, {100 * time.Millisecond, time.Second}, {5 * time.Minute, time.Minute}} {
		synctest.Test(t, func(t *testing.T) {
			var waits []time.Duration
			r := newRig(t, Options{Budget: time.Hour, RetryWait: tt.set, Notify: func(n retry.Notice) { waits = append(waits, n.Wait) }}, alwaysRefuse("15"))
			r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
			if len(waits) != 4 || waits[0] != tt.want {
				t.Errorf("--retry-wait %s: waits %v, want 4 of %s", tt.set, waits, tt.want)
			}
		})
	}
}

// Everything that is not a transient refusal passes through at once, after
// one attempt, byte for byte.
func TestEverythingElsePassesThroughAtOnce(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		header string
	}{
		{"unmarked 507", 507, "application/json", `{"error": "too big", "status": 507, "stage": "cpu_max_per_instance", "transient": false}`, ""},
		{"CongestedNetwork", 507, "application/json", `{"error": "Network is congested", "status": 507}`, ""},
		{"transient as a string", 507, "application/json", `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": "true"}`, "15"},
		{"transient null", 507, "application/json", `{"error": "x", "status": 507, "stage": "sufficient_idle_cpu", "transient": null}`, "15"},
		{"HTML 507 from a proxy", 507, "text/html", `<html><head><title>507 Insufficient Storage</title></head><body>"transient": true</body></html>`, "15"},
		{"503 with Retry-After", 503, "application/json", `{"error": "etcd is sulking", "status": 503}`, "3"},
		{"409 hard affinity", 409, "application/json", `{"error": "no node satisfies require_with_tag", "status": 409}`, ""},
		{"401", 401, "application/json", `{"error": "unauthorized", "status": 401}`, ""},
		{"500", 500, "text/plain", "Internal Server Error", ""},
		{"a 507 too big to be a refusal", 507, "application/json", `{"stage": "sufficient_idle_cpu", "transient": true, "pad": "` + strings.Repeat("x", 70<<10) + `"}`, "15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{}, func(n int, w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", tt.ctype)
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.body)
				})
				start := time.Now()
				got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
				if got.status != tt.status || string(got.body) != tt.body || got.header.Get("Content-Type") != tt.ctype {
					t.Errorf("client got %d %s %.80q", got.status, got.header.Get("Content-Type"), got.body)
				}
				if n := r.up.count(); n != 1 {
					t.Errorf("%d attempts, want 1", n)
				}
				if !got.at.Equal(start) {
					t.Errorf("the answer took %s, want no wait", got.at.Sub(start))
				}
				if s := r.proxy.Summary(); s.Waited != 0 || s.HandedBack != 0 {
					t.Errorf("summary %+v", s)
				}
			})
		})
	}
}

// A transport error is answered at once with a 502, and not retried.
func TestTransportErrorIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, func(_ int, w http.ResponseWriter, _ *http.Request) {
			panic(http.ErrAbortHandler) // the upstream drops the connection
		})
		start := time.Now()
		got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
		if got.status != http.StatusBadGateway || !strings.Contains(string(got.body), "no answer from the upstream API") {
			t.Errorf("client got %d %q, want a 502", got.status, got.body)
		}
		if n := r.up.count(); n != 1 || !got.at.Equal(start) {
			t.Errorf("%d attempts in %s, want 1 at once", n, got.at.Sub(start))
		}
	})
}

// A gzip-encoded transient refusal is recognised, and the client still gets
// the compressed bytes the server sent.
func TestGzipRefusalIsReplayedAndHandedBackCompressed(t *testing.T) {
	var zbody bytes.Buffer
	zw := gzip.NewWriter(&zbody)
	io.WriteString(zw, `{"error": "x", "status": 507, "stage": "sufficient_idle_memory", "transient": true}`)
	zw.Close()
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: 3 * time.Second}, func(n int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(507)
			w.Write(zbody.Bytes())
		})
		got := r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody), "Accept-Encoding", "gzip")
		if n := r.up.count(); n != 4 {
			t.Errorf("%d attempts, want 4 (3 waits of 1s)", n)
		}
		if !bytes.Equal(got.body, zbody.Bytes()) || got.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("client got %q, want the gzip bytes", got.body)
		}
	})
}

// Under -o json every line the proxy writes is one JSON object, with the
// request's method and path.
func TestJSONLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: 20 * time.Second, Log: jsonLog}, alwaysRefuse("15"))
		r.do(t.Context(), "POST", "/instances", strings.NewReader(createBody))
		checkGolden(t, "budget-json.txt", r.log.String())
	})
}

// A request without a body (a create without one, a GET) is replayed just
// the same.
func TestRequestWithoutBodyIsReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Budget: 2 * time.Second}, alwaysRefuse("1"))
		for _, m := range []string{"POST", "GET"} {
			before := r.up.count()
			got := r.do(t.Context(), m, "/instances", nil)
			if got.status != 507 || r.up.count()-before != 3 {
				t.Errorf("%s without a body: %d after %d attempts, want 507 after 3", m, got.status, r.up.count()-before)
			}
		}
	})
}
