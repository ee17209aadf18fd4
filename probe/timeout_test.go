package probe

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// Issue 41: a --timeout no longer than the park budget turns every parked
// request into the probe's own client_timeout, skips budget_bound, and
// still passes. It is refused before any load, unless an expectation says
// it is meant.
func TestTimeoutBelowTheBudgetIsRefused(t *testing.T) {
	base := Options{Target: "http://127.0.0.1:1", Requests: 1, Actors: []string{"a"}, Timeout: time.Second}
	for _, c := range []struct {
		name   string
		edit   func(*Options)
		refuse bool
	}{
		{"given budget", func(o *Options) { o.Checks.Budget = 3 * time.Second }, true},
		{"equal to the budget", func(o *Options) { o.Checks.Budget = time.Second }, true},
		{"meant: an expectation on client_timeout", func(o *Options) {
			o.Checks.Budget = 3 * time.Second
			o.Checks.Expect = mustExpect(t, "client_timeout>0")
		}, false},
		{"meant: parking=off", func(o *Options) {
			o.Checks.Budget = 3 * time.Second
			o.Checks.Expect = mustExpect(t, "parking=off")
		}, false},
		{"an expectation on something else is not", func(o *Options) {
			o.Checks.Budget = 3 * time.Second
			o.Checks.Expect = mustExpect(t, "served>0")
		}, true},
		{"longer than the budget", func(o *Options) { o.Checks.Budget = 500 * time.Millisecond }, false},
		// No budget given and none to read: 5s is assumed, not known.
		{"assumed budget", func(*Options) {}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			err := o.Validate()
			var oe *OptionError
			switch {
			case c.refuse && (!errors.As(err, &oe) || !strings.Contains(err.Error(), "Timeout 1s is not longer than the park budget") || !strings.Contains(err.Error(), "client_timeout>0")):
				t.Errorf("Validate = %v, want the timeout refused", err)
			case !c.refuse && err != nil:
				t.Errorf("Validate = %v, want it accepted", err)
			}
		})
	}
}

func mustExpect(t *testing.T, s string) []report.Expectation {
	t.Helper()
	e, err := report.ParseExpectations([]string{s})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A budget read from statusz is known once read: a shorter --timeout is
// refused then, before any request is sent.
func TestTimeoutBelowTheStatuszBudgetIsRefusedBeforeTheLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, o := simToday(t, func(c *router.Config) { c.ParkedRequestBudget = 3 * time.Second })
		o.Timeout = time.Second
		r, err := Run(context.Background(), o)
		var oe *OptionError
		if r != nil || !errors.As(err, &oe) || !strings.Contains(err.Error(), "Timeout 1s is not longer than the park budget 3s (the router's statusz max_wait)") {
			t.Fatalf("Run = %v, %v; want the timeout refused", r, err)
		}
		if n := s.ResumeCalls(); n != 0 {
			t.Errorf("%d ResumeActor calls: load was sent", n)
		}
	})
}

// Without --timeout the per-request timeout follows the budget, also one
// read from statusz: a request parked for PR #221's 30s is answered at
// the budget, not cut at the 15s the assumed 5s budget gives (the sender
// used to keep that one).
func TestDefaultTimeoutFollowsTheStatuszBudget(t *testing.T) {
	eachSenderInBubble(t, func(t *testing.T, kind string) {
		_, o := simToday(t, func(c *router.Config) {
			c.ParkedRequestBudget = 30 * time.Second
			c.Hold = map[string]router.Hold{"actor-0010": {}}
		})
		tr := o.RoundTripper.(*http.Transport)
		o.Transport, o.RoundTripper, o.Dial = kind, nil, tr.DialContext
		r := runReplay(t, o)
		if r.Count(report.BudgetExhausted) != 1 || r.Load.TimeoutSeconds != 40 {
			t.Errorf("budget_exhausted %d, client_timeout %d, timeout %vs; want one budget_exhausted and a 40s timeout",
				r.Count(report.BudgetExhausted), r.Count(report.ClientTimeout), r.Load.TimeoutSeconds)
		}
	})
}
