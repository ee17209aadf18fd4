package retry

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The proxy reads and classifies an answer itself and asks Check; the
// client's go-retryablehttp asks CheckRetry and Backoff. For the same
// answers in the same order both make the same decisions, wait the same
// and announce the same notices: one policy for both.
func TestCheckDecidesAsCheckRetry(t *testing.T) {
	refusal := func(stage string, transient bool) string {
		return `{"error": "x", "status": 507, "stage": "` + stage + `", "transient": ` + map[bool]string{true: "true", false: "false"}[transient] + `}`
	}
	type ans struct {
		status     int
		retryAfter string
		body       string
	}
	for _, tt := range []struct {
		name    string
		waits   []time.Duration // each answer's wait before the next attempt; 0: not retried
		policy  Policy
		answers []ans
	}{
		{"refused to the cap", []time.Duration{7e9, 7e9, 7e9, 7e9, 0}, Policy{Enabled: true, Budget: time.Hour}, []ans{
			{507, "7", refusal("sufficient_idle_cpu", true)}, {507, "7", refusal("sufficient_idle_cpu", true)},
			{507, "7", refusal("sufficient_idle_cpu", true)}, {507, "7", refusal("sufficient_idle_cpu", true)},
			{507, "7", refusal("sufficient_idle_cpu", true)},
		}},
		{"cut to the budget", []time.Duration{5e9, 5e9}, Policy{Enabled: true, Budget: 5 * time.Second}, []ans{
			{507, "15", refusal("capacity_guard", true)}, {507, "15", refusal("capacity_guard", true)},
		}},
		{"an unreadable Retry-After and --retry-wait", []time.Duration{MaxWait}, Policy{Enabled: true, Budget: time.Hour, Wait: 90 * time.Second}, []ans{
			{507, "soon", refusal("queue_state", true)},
		}},
		{"an unreadable Retry-After", []time.Duration{DefaultWait}, Policy{Enabled: true, Budget: time.Hour}, []ans{{507, "soon", refusal("queue_state", true)}}},
		{"not transient, then other statuses", []time.Duration{0, 0, 0}, Policy{Enabled: true, Budget: time.Hour}, []ans{
			{507, "", refusal("cpu_max_per_instance", false)}, {409, "", `{"error": "affinity"}`}, {200, "", `{}`},
		}},
		{"the retry off", []time.Duration{0}, Policy{Budget: time.Hour, Enabled: false}, []ans{{507, "15", refusal("sufficient_idle_cpu", true)}}},
		{"not on the list", []time.Duration{0}, Policy{Enabled: true, Budget: time.Hour, Method: "POST", Path: "/upload/u1"}, []ans{{507, "15", refusal("sufficient_idle_cpu", true)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
				p := tt.policy
				if p.Method == "" {
					p.Method, p.Path = "POST", "/instances"
				}
				p.Classify, p.Now = ClassifyRefusal, func() time.Time { return start }
				type decision struct {
					again bool
					wait  time.Duration
				}
				run := func(decide func(c *Call, a ans) decision) ([]decision, []Notice, int) {
					var notices []Notice
					q := p
					q.Notify = func(n Notice) { notices = append(notices, n) }
					c := q.NewCall()
					var out []decision
					for _, a := range tt.answers {
						out = append(out, decide(c, a))
					}
					return out, notices, c.Attempts()
				}
				header := func(a ans) http.Header {
					h := http.Header{}
					if a.retryAfter != "" {
						h.Set("Retry-After", a.retryAfter)
					}
					return h
				}
				hooks, hookNotices, hookAttempts := run(func(c *Call, a ans) decision {
					resp := &http.Response{StatusCode: a.status, Header: header(a), Body: io.NopCloser(strings.NewReader(a.body))}
					again, _ := c.CheckRetry(context.Background(), resp, nil)
					if !again {
						return decision{}
					}
					return decision{true, c.Backoff(0, 0, 0, resp)}
				})
				checks, checkNotices, checkAttempts := run(func(c *Call, a ans) decision {
					stage, transient := ClassifyRefusal(a.status, nil, []byte(a.body))
					wait, again := c.Check(context.Background(), Answer{Status: a.status, Header: header(a), Stage: stage, Transient: transient})
					if again {
						c.Announce()
					}
					return decision{again, wait}
				})
				for i, w := range tt.waits {
					if want := (decision{w > 0, w}); i >= len(hooks) || hooks[i] != want {
						t.Errorf("answer %d: CheckRetry and Backoff decided %+v, want %+v", i+1, hooks, want)
					}
				}
				if len(hooks) != len(checks) || hookAttempts != checkAttempts || len(hookNotices) != len(checkNotices) {
					t.Fatalf("CheckRetry: %v, %d attempts, notices %v; Check: %v, %d attempts, notices %v", hooks, hookAttempts, hookNotices, checks, checkAttempts, checkNotices)
				}
				for i := range hooks {
					if hooks[i] != checks[i] {
						t.Errorf("answer %d: CheckRetry %+v, Check %+v", i+1, hooks[i], checks[i])
					}
				}
				for i := range hookNotices {
					h, c := hookNotices[i].String(), checkNotices[i].String()
					if h != c {
						t.Errorf("notice %d: CheckRetry %q, Check %q", i+1, h, c)
					}
				}
			})
		})
	}
}

// RetryAfter is the wait a refusal asks for under the policy, not cut to
// the budget: the header on the policy's clock, or Policy.Wait in its
// place, clamped either way.
func TestCallRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		wait   time.Duration
		header string
		want   time.Duration
	}{
		{0, "15", 15 * time.Second},
		{0, now.Add(40 * time.Second).Format(http.TimeFormat), 40 * time.Second},
		{0, "86400", MaxWait},
		{0, "", DefaultWait},
		{2 * time.Second, "15", 2 * time.Second},
		{time.Hour, "15", MaxWait},
	} {
		c := Policy{Enabled: true, Budget: time.Second, Wait: tt.wait, Now: func() time.Time { return now }}.NewCall()
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		if got, _ := c.RetryAfter(h); got != tt.want {
			t.Errorf("Wait %s, Retry-After %q: %s, want %s", tt.wait, tt.header, got, tt.want)
		}
	}
}
