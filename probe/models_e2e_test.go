package probe_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// End to end against `sim router` in each of its models (sim/router):
// agent-substrate/substrate main at 86e138f6 (no parking), PR #221 at
// 4a8f978b (cmd/atenet/internal/router/) and the design the simulator
// implements by default (--model seed). The probe's verdict must
// be right against each, on the virtual clock.

const pr221HostTemplate = "{actor}.actors.resources.substrate.ate.dev"

// modelRouter starts the simulator as model with one worker held for ever
// by the first actor resumed, and a lot of 8.
func modelRouter(t *testing.T, model router.Model, edit func(*router.Config)) (*router.Server, probe.Options) {
	t.Helper()
	cfg := router.DefaultConfig()
	cfg.Model = model
	cfg.Workers = 1
	cfg.Actors = 10
	cfg.ActorIdle = 0
	cfg.ParkedRequestMax = 8
	// Above the whole burst, so Envoy's breaker never answers unless a
	// test lowers it.
	cfg.ExtprocMaxRequests = 64
	cfg.Seed = 1
	if edit != nil {
		edit(&cfg)
	}
	s, tr := startMem(t, cfg)
	t.Cleanup(tr.CloseIdleConnections)
	t.Cleanup(func() { s.Close() })
	return s, probe.Options{
		Target: "http://router.test", Mode: probe.Burst, Seed: 3,
		RoundTripper: tr, ScrapeTransport: tr,
		MetricsURL: "http://metrics.test/metrics", StatuszURL: "http://status.test/statusz",
	}
}

// warm resumes actor-0001 so it holds the only worker.
func warm(t *testing.T, o probe.Options) {
	t.Helper()
	o.Requests, o.Actors, o.MetricsURL, o.StatuszURL = 1, []string{"actor-0001"}, "", ""
	r, err := probe.Run(context.Background(), o)
	if err != nil || count(r, report.Served) != 1 {
		t.Fatalf("warm-up: %v %v", err, summary(r))
	}
}

// burst sends 20 requests to four cold actors while the pool is full.
func burst(t *testing.T, o probe.Options) *report.Report {
	t.Helper()
	o.Requests = 20
	o.Actors = []string{"actor-0002", "actor-0003", "actor-0004", "actor-0005"}
	r, err := probe.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func noneFailed(t *testing.T, r *report.Report) {
	t.Helper()
	for _, c := range r.Checks {
		if c.Status == report.CheckFailed {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}

func wantStatus(t *testing.T, r *report.Report, name, status string) report.Check {
	t.Helper()
	c, found := checks(r)[name]
	if !found || c.Status != status {
		t.Errorf("%s = %+v, want %s", name, c, status)
	}
	return c
}

// --model main answers a full pool at once with the same 503 a parking
// router sends when the budget is spent: the probe must fail `parked`.
func TestModelMainFailsParked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelMain, nil)
		// Only statusz, which on main has no parking card: nothing can
		// be parked, so the probe must not wait for the lot to drain.
		o.MetricsURL = ""
		warm(t, o)
		start := time.Now()
		r := burst(t, o)
		if d := time.Since(start); d >= time.Second {
			t.Errorf("the run took %s (virtual): main answers at once and has no lot to drain", d)
		}
		if count(r, report.Unavailable) != 20 {
			t.Fatalf("outcomes %v, want 20 refused at once with no free workers", summary(r))
		}
		c := wantStatus(t, r, report.CheckReachedParking, report.CheckFailed)
		if !strings.Contains(c.Detail, "parking is disabled on the router") {
			t.Errorf("reached_parking detail %q does not say parking is disabled", c.Detail)
		}
		// main's /statusz has no parking card: reported, not an error.
		if r.Statusz == nil {
			t.Error("statusz missing from the report")
		}
	})
}

// --model pr221 with its Host form: a spent budget is labelled
// outcome="error" in parking_wait, parking series appear only once used,
// and a healthy run passes every check.
func TestModelPR221WithItsHostForm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelPR221, func(c *router.Config) { c.ParkedRequestBudget = 2 * time.Second })
		o.HostTemplate = pr221HostTemplate
		warm(t, o)
		r := burst(t, o)
		if count(r, report.BudgetExhausted) != 8 || count(r, report.Shed) != 12 {
			t.Fatalf("outcomes %v, want 8 parked until budget_exhausted and 12 shed", summary(r))
		}
		noneFailed(t, r)
		if r.Checks == nil || checks(r)[report.CheckReachedParking].Status != report.CheckOK {
			t.Errorf("reached_parking = %+v", checks(r)[report.CheckReachedParking])
		}
		wantStatus(t, r, report.CheckParked, report.CheckOK)
		// The budget is PR #221's own, read from statusz as "2s".
		c := wantStatus(t, r, report.CheckBudgetBound, report.CheckOK)
		if !strings.Contains(c.Detail, "statusz") {
			t.Errorf("budget_bound %q does not say the budget came from statusz", c.Detail)
		}
		c = wantStatus(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckOK)
		if !strings.Contains(c.Detail, `outcome="error"`) {
			t.Errorf("wait check %q does not say it read PR #221's error label", c.Detail)
		}
	})
}

// --model pr221 with the default (atespace) Host form: every answer is a
// 404 invalid host, and the probe must say so and name the PR #221 form.
func TestModelPR221DefaultHostFailsReachedParking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelPR221, nil)
		r := burst(t, o)
		if count(r, report.NotFound) != 20 {
			t.Fatalf("outcomes %v, want 20 not_found", summary(r))
		}
		c := wantStatus(t, r, report.CheckReachedParking, report.CheckFailed)
		if !strings.Contains(c.Detail, pr221HostTemplate) {
			t.Errorf("reached_parking %q does not suggest --host-template %s", c.Detail, pr221HostTemplate)
		}
	})
}

// --model seed: the design the probe was written for passes, and the
// parked check sees the flights' first requests wait out the budget.
func TestModelSeedPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelSeed, nil)
		warm(t, o)
		r := burst(t, o)
		if count(r, report.BudgetExhausted) != 8 || count(r, report.Shed) != 12 {
			t.Fatalf("outcomes %v, want 8 budget_exhausted and 12 shed", summary(r))
		}
		noneFailed(t, r)
		for _, name := range []string{report.CheckParked, report.CheckReachedParking, report.CheckBudgetBound, report.CheckShedFast, report.CheckRejectedMatchesShed, report.CheckNoEnvoyOverflow} {
			wantStatus(t, r, name, report.CheckOK)
		}
	})
}

// Real Envoy answers a breaker overflow on the ext_proc cluster as a
// failed ext_proc stream: 500 with an empty body (the simulator's default).
// That is ext_proc_error, and it truncates the lot: no_envoy_overflow fails.
func TestBreakerBelowLotIsExtProcError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelSeed, func(c *router.Config) {
			c.ExtprocMaxRequests = 4
			c.AllowBreakerBelowLot = true
		})
		warm(t, o)
		r := burst(t, o)
		if count(r, report.ExtProcError) == 0 || count(r, report.EnvoyOverflow) != 0 {
			t.Fatalf("outcomes %v, want ext_proc_error and no envoy_overflow", summary(r))
		}
		c := wantStatus(t, r, report.CheckNoEnvoyOverflow, report.CheckFailed)
		if !strings.Contains(c.Detail, "ext_proc") {
			t.Errorf("no_envoy_overflow %q does not name the ext_proc errors", c.Detail)
		}
	})
}

// --model main-2026-08 (upstream main 6210ad86, today's router): a burst
// into a full pool parks what fits until the budget, then answers 503
// with ateapi's text, and sheds the rest at once. The probe counts the
// parks as budget_exhausted, as the router's own wait histogram does, and
// every check holds (issue 33, items 1 and 2).
func TestModelMain202608PassesAsTheRealOneDid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelMain202608, func(c *router.Config) { c.ParkedRequestBudget = 2 * time.Second })
		warm(t, o)
		r := burst(t, o)
		if count(r, report.BudgetExhausted) == 0 || count(r, report.Unavailable) != 0 {
			t.Fatalf("outcomes %v, want parks exhausted after the budget and none refused at once", summary(r))
		}
		wantStatus(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckOK)
		wantStatus(t, r, report.CheckReachedParking, report.CheckOK)
		noneFailed(t, r)
	})
}

// --model main-2026-08 with parking off (lot 0): refusals at once are a
// finding, not a pass.
func TestModelMain202608ParkingOffFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelMain202608, func(c *router.Config) { c.ParkedRequestMax = 0 })
		warm(t, o)
		r := burst(t, o)
		if count(r, report.Unavailable) == 0 || count(r, report.BudgetExhausted) != 0 {
			t.Fatalf("outcomes %v, want refusals at once", summary(r))
		}
		c := wantStatus(t, r, report.CheckReachedParking, report.CheckFailed)
		if !strings.Contains(c.Detail, "parking is disabled on the router") {
			t.Errorf("reached_parking %q does not say parking is disabled", c.Detail)
		}
	})
}

// burstWithRunning is burst with the running actor-0001 among the four
// cold ones.
func burstWithRunning(t *testing.T, o probe.Options) *report.Report {
	t.Helper()
	o.Requests = 25
	o.Actors = []string{"actor-0001", "actor-0002", "actor-0003", "actor-0004", "actor-0005"}
	r, err := probe.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// --model after-1229 (the router after substrate #1229, header
// addressing): a lot of 2 takes only the requests that park; the running
// actor is never shed, the cold ones beyond the lot are shed after one
// attempt, and every check holds.
func TestModelAfter1229Passes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, o := modelRouter(t, router.ModelAfter1229, func(c *router.Config) {
			c.ParkedRequestBudget = 2 * time.Second
			c.ParkedRequestMax = 2
			c.ExtprocMaxRequests = 0
			c.ControlPlaneLatency = 20 * time.Millisecond
		})
		o.Addressing = probe.TargetActorHeader
		warm(t, o)
		r := burstWithRunning(t, o)
		if count(r, report.Served) == 0 || count(r, report.Shed) == 0 || count(r, report.BudgetExhausted) == 0 {
			t.Fatalf("outcomes %v, want served, shed and budget_exhausted", summary(r))
		}
		if st := s.Status(); st.Parking.Active != 0 {
			t.Errorf("statusz active %d after the run", st.Parking.Active)
		}
		wantStatus(t, r, report.CheckRejectedMatchesShed, report.CheckOK)
		wantStatus(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckOK)
		noneFailed(t, r)
	})
}

// after-1229 serves a resume that outlived the budget: served, and the
// report counts it late.
func TestModelAfter1229ServedLateIsServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelAfter1229, func(c *router.Config) {
			c.Workers = 4
			c.ParkedRequestBudget = 2 * time.Second
			c.ExtprocMaxRequests = 0
			c.ControlPlaneLatency = 500 * time.Millisecond
			c.Hold = map[string]router.Hold{"actor-0002": {For: 1800 * time.Millisecond}}
		})
		o.Addressing = probe.TargetActorHeader
		o.Requests, o.Actors = 1, []string{"actor-0002"}
		r, err := probe.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if count(r, report.Served) != 1 || r.ServedLate != 1 {
			t.Fatalf("outcomes %v, served_late %d; want one served, late", summary(r), r.ServedLate)
		}
		noneFailed(t, r)
	})
}

// --model agentgateway, parking on: its answers, its gauge and no statusz;
// the checks it cannot feed are not judged, the others pass.
func TestModelAgentgatewayPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelAgentgateway, func(c *router.Config) {
			c.ParkedRequestBudget = 2 * time.Second
			c.ParkedRequestMax = 3
		})
		o.Addressing = probe.TargetActorHeader
		o.StatuszURL = ""
		o.Checks.Budget = 2 * time.Second
		warm(t, o)
		r := burstWithRunning(t, o)
		if count(r, report.Served) == 0 || count(r, report.Shed) == 0 || count(r, report.BudgetExhausted) == 0 {
			t.Fatalf("outcomes %v, want served, shed and budget_exhausted", summary(r))
		}
		wantStatus(t, r, report.CheckRejectedMatchesShed, report.CheckSkipped)
		wantStatus(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckSkipped)
		wantStatus(t, r, report.CheckActiveDrains, report.CheckOK)
		noneFailed(t, r)
	})
}

// --model agentgateway with parking off: ateapi's ResourceExhausted is a
// 429 at once, and parked fails saying parking did not engage.
func TestModelAgentgatewayParkingOffFailsParked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelAgentgateway, func(c *router.Config) { c.ParkedRequestMax = 0 })
		o.Addressing = probe.TargetActorHeader
		o.StatuszURL = ""
		o.Checks.Budget = 2 * time.Second
		warm(t, o)
		r := burstWithRunning(t, o)
		if count(r, report.RateLimited) == 0 {
			t.Fatalf("outcomes %v, want 429s", summary(r))
		}
		c := wantStatus(t, r, report.CheckParked, report.CheckFailed)
		if !strings.Contains(c.Detail, "the dataplane answered 429 at once: parking did not engage") {
			t.Errorf("parked %q", c.Detail)
		}
	})
}

// agentgateway answers a gRPC client's refusal with HTTP 200 and
// grpc-status: read as what it stands for, never served.
func TestModelAgentgatewayGRPCRefusalsAreNotServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := modelRouter(t, router.ModelAgentgateway, func(c *router.Config) { c.ParkedRequestMax = 0 })
		o.Addressing = probe.TargetActorHeader
		o.StatuszURL = ""
		o.Checks.Budget = 2 * time.Second
		warm(t, o)
		o.Header = http.Header{"Content-Type": {"application/grpc"}}
		o.Requests, o.Actors = 4, []string{"actor-0002"}
		r, err := probe.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if count(r, report.RateLimited) != 4 || count(r, report.Served) != 0 {
			t.Fatalf("outcomes %v, want 4 rate_limited read from grpc-status, none served", summary(r))
		}
		if d := r.TopDetail(report.RateLimited); d != "grpc-status 14: rate limited" {
			t.Errorf("detail %q, want the grpc-status named", d)
		}
	})
}
