package probe_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// End to end against the router simulator: the probe and the simulator
// share no strings, so a mismatch in the wire format shows here.

func checks(r *report.Report) map[string]report.Check {
	m := map[string]report.Check{}
	for _, c := range r.Checks {
		m[c.Name] = c
	}
	return m
}

func count(r *report.Report, o report.Outcome) int64 {
	if s := r.Outcomes[o.String()]; s != nil {
		return s.Count
	}
	return 0
}

// startMem runs the simulator over in-memory connections for a synctest
// bubble; the returned transport reaches it.
func startMem(t *testing.T, cfg router.Config) (*router.Server, *http.Transport) {
	t.Helper()
	ls := []*memnet.Listener{memnet.NewListener("router.test:80"), memnet.NewListener("metrics.test:80"), memnet.NewListener("status.test:80")}
	cfg.Listener, cfg.MetricsListener, cfg.StatusListener = ls[0], ls[1], ls[2]
	s, err := router.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("router.Start: %v", err)
	}
	return s, memnet.Transport(ls...)
}

// TestSimRouterSaturatedPool: one worker held by a busy actor, a small lot.
// A burst parks what fits and sheds the rest at once; the parked requests
// exhaust the (default, 5 s) budget. All built-in checks hold. On the
// virtual clock, so the 5 s budget costs no time.
func TestSimRouterSaturatedPool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := router.DefaultConfig()
		cfg.Workers = 1
		cfg.Actors = 10
		cfg.ActorIdle = 0 // the first actor resumed never lets its worker go
		cfg.ParkedRequestMax = 8
		// The breaker stays above the burst: with 16, how many of the 20
		// requests are in the router at once depends on how fast the
		// shed ones are answered, and 1-3 became ext_proc errors in some
		// runs. This test is about parking and shedding, not the breaker.
		cfg.ExtprocMaxRequests = 32
		cfg.Seed = 1
		s, tr := startMem(t, cfg)
		defer s.Close()
		defer tr.CloseIdleConnections()

		// Warm one actor so it holds the only worker.
		warm, err := probe.Run(context.Background(), probe.Options{
			Target: "http://router.test", Mode: probe.Burst, Requests: 1, Actors: []string{"actor-0001"},
			RoundTripper: tr, Seed: 1,
		})
		if err != nil || count(warm, report.Served) != 1 {
			t.Fatalf("warm-up: %v %+v", err, warm)
		}

		exps, _ := report.ParseExpectations([]string{"shed>=1", "budget_exhausted==8", "max(shed)<100ms"})
		r, err := probe.Run(context.Background(), probe.Options{
			Target: "http://router.test", Mode: probe.Burst, Requests: 20,
			Actors: []string{"actor-0002", "actor-0003", "actor-0004", "actor-0005"}, Seed: 3,
			RoundTripper: tr, ScrapeTransport: tr,
			MetricsURL: "http://metrics.test/metrics", StatuszURL: "http://status.test/statusz",
			Checks: report.CheckConfig{Expect: exps},
		})
		if err != nil {
			t.Fatal(err)
		}
		if count(r, report.BudgetExhausted) != 8 || count(r, report.Shed) != 12 {
			t.Fatalf("outcomes %v, want 8 parked until budget_exhausted and 12 shed", summary(r))
		}
		be := r.Outcomes["budget_exhausted"].Latency
		if be.P50 < 4.9 || be.Max > 5.5 {
			t.Errorf("budget_exhausted latency %+v, want about the 5s budget", be)
		}
		for _, c := range r.Checks {
			if c.Status == report.CheckFailed {
				t.Errorf("check %s failed: %s", c.Name, c.Detail)
			}
		}
		for _, name := range []string{report.CheckBudgetBound, report.CheckShedFast, report.CheckRejectedMatchesShed, report.CheckActiveDrains} {
			if c := checks(r)[name]; c.Status != report.CheckOK {
				t.Errorf("%s = %+v, want ok", name, c)
			}
		}
		m := r.Metrics
		if m == nil || m.RejectedDelta == nil || *m.RejectedDelta != 12 || m.ActivePeak == nil || *m.ActivePeak != 8 {
			t.Errorf("router metrics %+v", m)
		}
		if w := m.WaitDelta["budget_exhausted"]; w.Count != 8 || w.SumSeconds < 39 {
			t.Errorf("wait histogram delta %+v, want 8 waits of about 5s", m.WaitDelta)
		}
		if r.Statusz == nil || r.Statusz.After == nil || r.Statusz.After.MaxParked == nil || *r.Statusz.After.MaxParked != 8 {
			t.Errorf("statusz %+v", r.Statusz)
		}
	})
}

// TestSimRouterBreakerBelowLot: an ext_proc breaker below the lot makes
// Envoy answer overflows, which no_envoy_overflow must catch.
func TestSimRouterBreakerBelowLot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := router.DefaultConfig()
		cfg.Workers = 1
		cfg.Actors = 10
		cfg.ActorIdle = 0
		cfg.ParkedRequestMax = 8
		cfg.ExtprocMaxRequests = 4
		cfg.AllowBreakerBelowLot = true
		// The upstream-cluster form (503 + x-envoy-overloaded); real Envoy's
		// empty 500 is the ext_proc_error outcome, tested with it.
		cfg.BreakerOverflow503 = true
		cfg.ParkedRequestBudget = time.Second
		s, tr := startMem(t, cfg)
		defer s.Close()
		defer tr.CloseIdleConnections()
		r, err := probe.Run(context.Background(), probe.Options{
			Target: "http://router.test", Mode: probe.Burst, Requests: 12, Actors: probe.GeneratedActors(4),
			RoundTripper: tr, ScrapeTransport: tr, MetricsURL: "http://metrics.test/metrics",
			Checks: report.CheckConfig{Budget: time.Second},
		})
		if err != nil {
			t.Fatal(err)
		}
		if count(r, report.EnvoyOverflow) == 0 {
			t.Fatalf("no envoy_overflow: %v", summary(r))
		}
		if c := checks(r)[report.CheckNoEnvoyOverflow]; c.Status != report.CheckFailed {
			t.Errorf("no_envoy_overflow = %+v", c)
		}
		// Overflows never reach the lot, so they are not parking rejections.
		if c := checks(r)[report.CheckRejectedMatchesShed]; c.Status != report.CheckOK {
			t.Errorf("rejected_matches_shed = %+v", c)
		}
	})
}

// TestSimRouterFailFastAnswers: the fail-fast table's answers classify as
// the vocabulary says.
func TestSimRouterFailFastAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := router.DefaultConfig()
		cfg.Actors = 5
		cfg.Deny = []string{"actor-0001"}
		cfg.Unauth = []string{"actor-0002"}
		cfg.Slow = []string{"actor-0003"}
		cfg.Fail = []string{"actor-0004"}
		s, tr := startMem(t, cfg)
		defer s.Close()
		defer tr.CloseIdleConnections()
		want := map[string]report.Outcome{
			"actor-0001": report.PermissionDenied, "actor-0002": report.Unauthenticated,
			"actor-0003": report.DeadlineExceeded, "actor-0004": report.ResumeError,
			"actor-0005": report.Served, "actor-0099": report.NotFound,
		}
		for actor, o := range want {
			r, err := probe.Run(context.Background(), probe.Options{
				Target: "http://router.test", Mode: probe.Burst, Requests: 2, Actors: []string{actor}, RoundTripper: tr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if count(r, o) != 2 {
				t.Errorf("%s: %v, want 2 %s", actor, summary(r), o)
			}
		}
	})
}

// TestSimRouterOverTCP runs the real transport, pre-dialled burst and
// scrapes against the simulator on loopback, with a short budget. Its
// router is its own, so its real-time budget waits in parallel.
func TestSimRouterOverTCP(t *testing.T) {
	t.Parallel()
	cfg := router.DefaultConfig()
	cfg.Listen, cfg.MetricsListen, cfg.StatusListen = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	cfg.Workers = 2
	cfg.Actors = 20
	cfg.ActorIdle = 0
	cfg.ParkedRequestMax = 10
	cfg.ExtprocMaxRequests = 20
	cfg.ParkedRequestBudget = 300 * time.Millisecond
	s, err := router.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := probe.Run(context.Background(), probe.Options{
		Target: s.URL(), Mode: probe.Burst, Requests: 40, Actors: probe.GeneratedActors(20), Seed: 5,
		MetricsURL: s.MetricsURL(), StatuszURL: s.StatusURL(),
		// Generous bounds: a loaded test machine is not a slow router.
		Checks: report.CheckConfig{Budget: 300 * time.Millisecond, Slack: 5 * time.Second, ShedMax: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if count(r, report.Served) == 0 || count(r, report.Shed) == 0 || count(r, report.BudgetExhausted) == 0 {
		t.Errorf("want served, shed and budget_exhausted: %v", summary(r))
	}
	if count(r, report.TransportError) != 0 {
		t.Errorf("transport errors: %v", r.Outcomes["transport_error"].Details)
	}
	for _, c := range r.Checks {
		// A burst has no schedule for the sender to fall behind.
		if c.Status != report.CheckOK && c.Name != report.CheckSenderOnSchedule {
			t.Errorf("check %s: %s %s", c.Name, c.Status, c.Detail)
		}
	}
}

func summary(r *report.Report) string {
	var parts []string
	for _, o := range report.AllOutcomes() {
		if n := count(r, o); n > 0 {
			parts = append(parts, o.String()+"="+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, " ")
}
