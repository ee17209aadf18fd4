package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/retry"
)

var createReq = client.CreateInstanceRequest{
	Name: "web1", CPUs: 2, Memory: 2048,
	Disk:     []client.DiskRequest{{Size: 20, Base: "debian:12"}},
	Metadata: map[string]any{"tags": []string{"a", "b"}},
}

// gaps returns the time between consecutive requests.
func gaps(reqs []httpstub.Request) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(reqs); i++ {
		out = append(out, reqs[i].At.Sub(reqs[i-1].At))
	}
	return out
}

func TestRetryTransientTwiceThenCreated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t,
			refusal507("sufficient_idle_cpu", true, "15"),
			refusal507("capacity_guard", true, "15"),
			ok200(instanceJSON))
		var n notices
		c := newClient(t, f, time.Hour, &n, nil)
		start := time.Now()
		inst, err := c.CreateInstance(t.Context(), createReq)
		if err != nil {
			t.Fatalf("CreateInstance: %v", err)
		}
		if inst.Name != "web1" || inst.State != "initial" {
			t.Errorf("instance = %+v", inst)
		}
		reqs := f.apiRequests()
		if len(reqs) != 3 {
			t.Fatalf("sent %d requests, want 3", len(reqs))
		}
		if g := gaps(reqs); g[0] != 15*time.Second || g[1] != 15*time.Second {
			t.Errorf("waits = %v, want [15s 15s]", g)
		}
		if took := time.Since(start); took != 30*time.Second {
			t.Errorf("call took %s, want 30s", took)
		}
		got := n.all()
		want := []retry.Notice{
			{Stage: "sufficient_idle_cpu", Wait: 15 * time.Second, Attempt: 2, Max: 5, Left: time.Hour},
			{Stage: "capacity_guard", Wait: 15 * time.Second, Attempt: 3, Max: 5, Left: time.Hour - 15*time.Second},
		}
		if len(got) != len(want) {
			t.Fatalf("notices = %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("notice %d = %+v, want %+v", i, got[i], want[i])
			}
		}
		if s := got[0].String(); s != "capacity refused at stage sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 1h0m0s left)" {
			t.Errorf("notice text = %q", s)
		}
	})
}

func TestRetryAlwaysTransientGivesUpAfterFiveWithTheServersRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		last := refusal507("sufficient_idle_memory", true, "15")
		last.header["X-Request-ID"] = "req-5"
		f := newCreateStubs(t,
			refusal507("sufficient_idle_memory", true, "15"),
			refusal507("sufficient_idle_memory", true, "15"),
			refusal507("sufficient_idle_memory", true, "15"),
			refusal507("sufficient_idle_memory", true, "15"),
			last)
		var n notices
		c := newClient(t, f, time.Hour, &n, nil)
		_, err := c.CreateInstance(t.Context(), createReq)
		if got := len(f.apiRequests()); got != retry.MaxAttempts {
			t.Fatalf("sent %d requests, want %d", got, retry.MaxAttempts)
		}
		var apiErr *client.APIError
		var cr *client.CapacityRefusal
		if !errors.As(err, &apiErr) || !errors.As(err, &cr) {
			t.Fatalf("error %T %v is not an APIError with a CapacityRefusal", err, err)
		}
		if !cr.Transient || cr.Stage != "sufficient_idle_memory" || cr.RetryAfter != 15*time.Second {
			t.Errorf("refusal = %+v", cr)
		}
		if apiErr.StatusCode != 507 || apiErr.Message != "no candidates at stage sufficient_idle_memory" || apiErr.RequestID != "req-5" {
			t.Errorf("error = %+v", apiErr)
		}
		if apiErr.Attempts != 5 || apiErr.Elapsed != 60*time.Second {
			t.Errorf("attempts %d elapsed %s, want 5 and 60s", apiErr.Attempts, apiErr.Elapsed)
		}
		if strings.Contains(err.Error(), "giving up") {
			t.Errorf("error is retryablehttp's, not the server's: %v", err)
		}
		if len(n.all()) != 4 {
			t.Errorf("%d notices, want 4", len(n.all()))
		}
	})
}

func TestRetryAfterValuesAreClampedOrDefaulted(t *testing.T) {
	tests := []struct {
		name   string
		header func(now time.Time) string // "" = no header
		want   time.Duration
	}{
		{"missing", nil, 15 * time.Second},
		{"0 raised to 1s", fixed("0"), time.Second},
		{"61 cut to 60s", fixed("61"), 60 * time.Second},
		{"9999 cut to 60s", fixed("9999"), 60 * time.Second},
		// client-python 74d6e129 test_a_hostile_header_is_clamped.
		{"-60 is clamped to 1s", fixed("-60"), time.Second},
		{"+5 is 5s", fixed("+5"), 5 * time.Second},
		{"12.5 is malformed", fixed("12.5"), 15 * time.Second},
		{"garbage", fixed("soon"), 15 * time.Second},
		{"HTTP-date 20s ahead", func(now time.Time) string { return now.Add(20 * time.Second).UTC().Format(http.TimeFormat) }, 20 * time.Second},
		{"HTTP-date in the past", func(now time.Time) string { return now.Add(-time.Minute).UTC().Format(http.TimeFormat) }, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				refused := refusal507("sufficient_free_disk", true, "")
				if tt.header != nil {
					refused.header = map[string]string{"Retry-After": tt.header(time.Now())}
				}
				f := newCreateStubs(t, refused, ok200(instanceJSON))
				c := newClient(t, f, time.Hour, nil, nil)
				if _, err := c.CreateInstance(t.Context(), createReq); err != nil {
					t.Fatal(err)
				}
				if g := gaps(f.apiRequests()); len(g) != 1 || g[0] != tt.want {
					t.Errorf("waited %v, want [%s]", g, tt.want)
				}
			})
		})
	}
}

func fixed(v string) func(time.Time) string { return func(time.Time) string { return v } }

func TestRetryDeadlineShorterThanTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rtt = 100 * time.Millisecond
		refused := refusal507("queue_state", true, "15")
		refused.delay = rtt
		f := newCreateStubs(t, refused, refused)
		var n notices
		budget := 10 * time.Second
		c := newClient(t, f, budget, &n, nil)
		start := time.Now()
		_, err := c.CreateInstance(t.Context(), createReq)
		took := time.Since(start)
		reqs := f.apiRequests()
		if len(reqs) != 2 {
			t.Fatalf("sent %d requests, want 2 (one sleep of what was left, then one last request)", len(reqs))
		}
		// The first request took rtt, so 9.9s were left to sleep.
		if g := gaps(reqs); g[0] != budget {
			t.Errorf("second request sent %s after the first, want %s", g[0], budget)
		}
		if got := n.all(); len(got) != 1 || got[0].Wait != budget-rtt || got[0].Left != budget-rtt {
			t.Errorf("notices = %+v, want one wait of %s", got, budget-rtt)
		}
		if took > budget+rtt {
			t.Errorf("call took %s, more than one round trip past the %s budget", took, budget)
		}
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || apiErr.Attempts != 2 || apiErr.Elapsed != took {
			t.Errorf("error = %v (%+v)", err, apiErr)
		}
	})
}

func TestRetryBudgetZeroNeverRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, refusal507("sufficient_idle_cpu", true, "15"))
		var n notices
		c := newClient(t, f, 0, &n, nil)
		_, err := c.CreateInstance(t.Context(), createReq)
		var cr *client.CapacityRefusal
		if !errors.As(err, &cr) || !cr.Transient {
			t.Fatalf("error = %v, want the transient refusal", err)
		}
		if len(f.apiRequests()) != 1 || len(n.all()) != 0 {
			t.Errorf("%d requests, %d notices; want 1 and 0", len(f.apiRequests()), len(n.all()))
		}
	})
}

func TestRetryOffSendsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, refusal507("sufficient_idle_cpu", true, "15"))
		c := newClient(t, f, -1, nil, nil)
		_, err := c.CreateInstance(t.Context(), createReq)
		var apiErr *client.APIError
		var cr *client.CapacityRefusal
		if !errors.As(err, &apiErr) || !errors.As(err, &cr) || !cr.Transient {
			t.Fatalf("error = %v, want the transient refusal", err)
		}
		if len(f.apiRequests()) != 1 || apiErr.Attempts != 1 {
			t.Errorf("%d requests, attempts %d; want 1 and 1", len(f.apiRequests()), apiErr.Attempts)
		}
	})
}

func TestRetryLeavesEverythingElseAlone(t *testing.T) {
	tests := []struct {
		name string
		a    answer
	}{
		{"507 transient false", refusal507("cpu_max_per_instance", false, "")},
		{"507 without transient", answer{status: 507, body: `{"error": "no", "status": 507, "stage": "sufficient_idle_cpu"}`, header: map[string]string{"Retry-After": "15"}}},
		{"507 stage unknown", answer{status: 507, body: `{"error": "no", "status": 507, "stage": "unknown", "transient": false}`}},
		{"507 transient as 1", answer{status: 507, body: `{"error": "no", "status": 507, "stage": "capacity_guard", "transient": 1}`, header: map[string]string{"Retry-After": "15"}}},
		{"507 without stage (CongestedNetwork)", answer{status: 507, body: `{"error": "CongestedNetwork: address pool exhausted", "status": 507}`}},
		{"507 transient as a string", answer{status: 507, body: `{"error": "no", "status": 507, "stage": "sufficient_idle_cpu", "transient": "true"}`, header: map[string]string{"Retry-After": "15"}}},
		{"507 non-JSON", answer{status: 507, body: `Insufficient Storage`, header: map[string]string{"Content-Type": "text/plain", "Retry-After": "15"}}},
		{"409 affinity", answer{status: 409, body: `{"error": "hard affinity cannot be met", "status": 409}`}},
		{"404 node", answer{status: 404, body: `{"error": "node not found", "status": 404}`}},
		{"500", answer{status: 500, body: `{"error": "boom", "status": 500}`}},
		{"503 with Retry-After", answer{status: 503, body: `{"error": "busy", "status": 503}`, header: map[string]string{"Retry-After": "1"}}},
		{"429", answer{status: 429, body: `{"error": "slow down", "status": 429}`, header: map[string]string{"Retry-After": "1"}}},
		{"transport error", answer{err: errors.New("connection reset by peer")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newCreateStubs(t, tt.a)
				var n notices
				c := newClient(t, f, time.Hour, &n, nil)
				_, err := c.CreateInstance(t.Context(), createReq)
				if err == nil {
					t.Fatal("no error")
				}
				if len(f.apiRequests()) != 1 || len(n.all()) != 0 {
					t.Errorf("%d requests, %d notices; want exactly one request and no notice", len(f.apiRequests()), len(n.all()))
				}
				var cr *client.CapacityRefusal
				if errors.As(err, &cr) && cr.Transient {
					t.Errorf("classified transient: %+v", cr)
				}
			})
		})
	}
}

func TestRetryReplaysIdenticalBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, times(refusal507("sufficient_idle_cpu", true, "1"), 5)...)
		c := newClient(t, f, time.Hour, nil, nil)
		_, _ = c.CreateInstance(t.Context(), createReq)
		reqs := f.apiRequests()
		if len(reqs) != 5 {
			t.Fatalf("%d requests, want 5", len(reqs))
		}
		want := `{"name":"web1","cpus":2,"memory":2048,"disk":[{"size":20,"base":"debian:12"}],"metadata":{"tags":["a","b"]}}`
		for i, r := range reqs {
			if string(r.Body) != want {
				t.Errorf("request %d body = %s, want %s", i+1, r.Body, want)
			}
			if r.Method != "POST" || r.Path != "/instances" {
				t.Errorf("request %d = %s %s", i+1, r.Method, r.Path)
			}
		}
	})
}

func TestRetryRawCallIsRetriedToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, refusal507("sufficient_idle_disk", true, "2"), ok200(instanceJSON))
		var n notices
		c := newClient(t, f, time.Minute, &n, nil)
		body := []byte(`{"name": "raw1",  "cpus": 1, "memory": 512, "disk": []}`)
		resp, err := c.Raw(t.Context(), "post", "instances", body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("Raw = %v, %v", resp, err)
		}
		reqs := f.apiRequests()
		if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, body) || !bytes.Equal(reqs[1].Body, body) {
			t.Errorf("requests = %+v", reqs)
		}
		if len(n.all()) != 1 || n.all()[0].Wait != 2*time.Second {
			t.Errorf("notices = %+v", n.all())
		}
	})
}

func TestRetry401MidLoopReloginsWithoutCountingAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The token expires before the second API request.
		f := newCreateStubs(t,
			refusal507("sufficient_idle_cpu", true, "15"),
			expired401,
			refusal507("sufficient_idle_cpu", true, "15"),
			ok200(instanceJSON))
		var n notices
		c := newClient(t, f, time.Hour, &n, nil)
		if _, err := c.CreateInstance(t.Context(), createReq); err != nil {
			t.Fatal(err)
		}
		reqs := f.apiRequests()
		// 507, 401, (re-login) 507, 200: four requests, three capacity attempts.
		if len(reqs) != 4 || f.loginCount() != 2 {
			t.Fatalf("%d requests, %d logins; want 4 and 2", len(reqs), f.loginCount())
		}
		if !bytes.Equal(reqs[1].Body, reqs[2].Body) {
			t.Errorf("the repeat after re-login changed the body")
		}
		got := n.all()
		if len(got) != 2 || got[0].Attempt != 2 || got[1].Attempt != 3 {
			t.Errorf("notices = %+v, want attempts 2 and 3", got)
		}
	})
}

func TestRetryStopsAtTransportErrorOr503MidSequence(t *testing.T) {
	reset := errors.New("connection reset by peer")
	t.Run("transport error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newCreateStubs(t, refusal507("sufficient_idle_cpu", true, "15"), answer{err: reset})
			c := newClient(t, f, time.Hour, nil, nil)
			_, err := c.CreateInstance(t.Context(), createReq)
			if !errors.Is(err, reset) {
				t.Fatalf("error = %v, want the transport error", err)
			}
			var te *client.TransportError
			if !errors.As(err, &te) || te.Attempts != 2 || !strings.Contains(err.Error(), "http://sf.test:13000/instances") {
				t.Errorf("error = %v (%+v)", err, te)
			}
			if len(f.apiRequests()) != 2 {
				t.Errorf("%d requests, want 2", len(f.apiRequests()))
			}
		})
	})
	t.Run("503", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newCreateStubs(t, refusal507("sufficient_idle_cpu", true, "15"),
				answer{status: 503, body: `{"error": "maintenance", "status": 503}`})
			c := newClient(t, f, time.Hour, nil, nil)
			_, err := c.CreateInstance(t.Context(), createReq)
			var apiErr *client.APIError
			var cr *client.CapacityRefusal
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Message != "maintenance" || errors.As(err, &cr) {
				t.Fatalf("error = %v, want the 503", err)
			}
			if apiErr.Attempts != 2 || len(f.apiRequests()) != 2 {
				t.Errorf("attempts %d, requests %d; want 2 and 2", apiErr.Attempts, len(f.apiRequests()))
			}
		})
	})
}

func TestRetryInterruptedDuringTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		interrupted := errors.New("interrupted")
		ctx, cancel := context.WithCancelCause(t.Context())
		f := newCreateStubs(t, refusal507("sufficient_idle_cpu", true, "15"))
		c := newClient(t, f, time.Hour, &notices{}, nil)
		go func() {
			time.Sleep(5 * time.Second) // virtual: the user presses Ctrl-C during the first wait
			cancel(interrupted)
		}()
		start := time.Now()
		_, err := c.CreateInstance(ctx, createReq)
		if !errors.Is(err, interrupted) {
			t.Fatalf("error = %v, want the cancellation cause", err)
		}
		if time.Since(start) != 5*time.Second || len(f.apiRequests()) != 1 {
			t.Errorf("took %s with %d requests, want 5s and 1", time.Since(start), len(f.apiRequests()))
		}
	})
}

func TestRetryPerRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := ok200(instanceJSON)
		slow.delay = time.Minute
		f := newStubs(t, httpstub.REST("GET", "/instances/web1"), slow)
		c, err := client.New(client.Options{APIURL: "http://sf.test", Namespace: "system", Key: testKey, Transport: f, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.GetInstance(t.Context(), "web1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want a deadline", err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("took %s, want the 2s per-request timeout", took)
		}
	})
}

// TestRetryStopsBeforeTheContextDeadline: when the caller's context has a
// deadline of its own, a wait that would outlast it is not started (no
// request could follow it); the caller gets the refusal, not a timeout.
func TestRetryStopsBeforeTheContextDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newCreateStubs(t, times(refusal507("sufficient_idle_cpu", true, "15"), 2)...)
		var n notices
		c := newClient(t, f, time.Hour, &n, nil)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.CreateInstance(ctx, createReq)
		var cr *client.CapacityRefusal
		if !errors.As(err, &cr) || !cr.Transient || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want the transient refusal", err)
		}
		if len(f.apiRequests()) != 2 || time.Since(start) != 15*time.Second || len(n.all()) != 1 {
			t.Errorf("%d requests in %s with %d notices, want 2 in 15s with 1", len(f.apiRequests()), time.Since(start), len(n.all()))
		}
	})
}
