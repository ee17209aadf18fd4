package probe

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// The captured situations of upstream main 6210ad86 (testdata/routers/
// 6210ad86, replayed byte for byte by the TestReplay* tests) rehearsed on
// `sim router --model main-2026-08` instead: the probe must classify the
// simulator's answers and reach the same verdicts as it does on the real
// router's (issue 33: "parking-probe against sim router --model
// main-2026-08 rehearses each capture's situation with the same outcome
// and verdict as the real router gave").

// simToday starts the main-2026-08 model in the captures' atespace, with
// the captures' flags (sim router applies the same defaults by flag), and
// returns options that probe it.
func simToday(t *testing.T, edit func(*router.Config)) (*router.Server, Options) {
	t.Helper()
	cfg := router.DefaultConfig()
	cfg.Model = router.ModelMain202608
	router.ApplyMain202608Defaults(&cfg, func(string) bool { return false })
	cfg.Atespace = "demo-ns"
	cfg.ActorIdle = 0
	cfg.Seed = 1
	if edit != nil {
		edit(&cfg)
	}
	ls := []*memnet.Listener{memnet.NewListener("router.test:80"), memnet.NewListener("metrics.test:80"), memnet.NewListener("status.test:80")}
	cfg.Listener, cfg.MetricsListener, cfg.StatusListener = ls[0], ls[1], ls[2]
	s, err := router.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := memnet.Transport(ls...)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		s.Close()
	})
	return s, Options{
		Target: "http://router.test", Mode: Burst, Seed: 1, Requests: 1,
		Actors: []string{"actor-0010"}, Atespace: "demo-ns",
		RoundTripper: tr, ScrapeTransport: tr,
		MetricsURL: "http://metrics.test/metrics", StatuszURL: "http://status.test/statusz",
	}
}

// served: a parked request whose actor gets a worker within the budget.
func TestSimToday_served(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := simToday(t, func(c *router.Config) {
			c.ParkedRequestBudget = 3 * time.Second
			c.Hold = map[string]router.Hold{"actor-0001": {For: time.Second}}
		})
		o.Actors = []string{"actor-0001"}
		r := runReplay(t, o)
		if r.Count(report.Served) != 1 {
			t.Fatalf("outcomes %v, want one served", r.Outcomes)
		}
		wantCheck(t, r, report.CheckReachedParking, report.CheckOK, "1 of 1 answers came from the parking path")
		noFailedChecks(t, r)
	})
}

// budget, budget-newtext, budget-fp, code-Unavailable, code-Aborted: each
// parked until the budget, then a 503 with ateapi's text (or none); the
// probe counts one budget_exhausted as the router's own wait histogram
// does (TestReplayBudgetExhaustionsOfEveryText's verdicts).
func TestSimToday_budgetExhaustionsOfEveryText(t *testing.T) {
	hold := map[string]router.Hold{"actor-0010": {}}
	for name, edit := range map[string]func(*router.Config){
		"budget":         func(c *router.Config) { c.ParkedRequestBudget = 3 * time.Second; c.Hold = hold },
		"budget-newtext": func(c *router.Config) { c.Hold = hold; c.PoolFullMessage = "no worker has room for the actor" },
		"budget-fp":      func(c *router.Config) { c.Hold = hold; c.PoolFullCode = router.FailedPrecondition },
		"code-Unavailable": func(c *router.Config) {
			c.ControlPlaneUnavailable = []router.Window{{Start: 0, Duration: time.Hour}}
		},
		"code-Aborted": func(c *router.Config) { c.Abort = map[string]int{"actor-0010": 0} },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, o := simToday(t, func(c *router.Config) {
					c.ParkedRequestBudget = 2 * time.Second
					edit(c)
				})
				r := runReplay(t, o)
				if r.Count(report.BudgetExhausted) != 1 {
					t.Fatalf("outcomes %v, want one budget_exhausted", r.Outcomes)
				}
				wantCheck(t, r, report.CheckWaitMatchesBudgetExhausted, report.CheckOK, `outcome="budget_exhausted"} grew by 1`)
				wantCheck(t, r, report.CheckReachedParking, report.CheckOK, "1 of 1 answers came from the parking path")
				wantCheck(t, r, report.CheckParked, report.CheckOK, "the router's statusz max_wait")
				noFailedChecks(t, r)
			})
		})
	}
}

// disabled: --parked-request-max=0 refuses a full pool at once with the
// budget exhaustion's text: a finding, unless parking=off is expected
// (TestReplayParkingOffIsAFinding's verdicts).
func TestSimToday_disabled(t *testing.T) {
	for _, withStatusz := range []bool{true, false} {
		name := map[bool]string{true: "statusz", false: "answers only"}[withStatusz]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, o := simToday(t, func(c *router.Config) {
					c.ParkedRequestBudget = 3 * time.Second
					c.ParkedRequestMax = 0
					c.Hold = map[string]router.Hold{router.HoldEveryActor: {}}
				})
				o.Requests = 2
				o.Actors = []string{"actor-0010", "actor-0001"}
				if !withStatusz {
					o.MetricsURL, o.StatuszURL = "", ""
				}
				r := runReplay(t, o)
				if r.Count(report.Unavailable) != 2 || r.Count(report.BudgetExhausted) != 0 {
					t.Fatalf("outcomes %v, want 2 unavailable (refused at once)", r.Outcomes)
				}
				wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "parking is disabled on the router")
				o.Checks.Expect = []report.Expectation{{Text: "parking=off", Parking: report.ParkingOffWord}}
				r = runReplay(t, o)
				wantCheck(t, r, report.CheckReachedParking, report.CheckSkipped, "as expected")
				wantCheck(t, r, "expect parking=off", report.CheckOK, "parking is off")
				noFailedChecks(t, r)
			})
		})
	}
}

// badhost: PR #221's Host form is a 404 the probe reports as a Host
// problem naming the flag (TestReplayBadHostNamesTheFlag's verdict).
func TestSimToday_badhost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, o := simToday(t, nil)
		o.HostTemplate = PR221HostTemplate
		r := runReplay(t, o)
		if r.Count(report.NotFound) != 1 {
			t.Fatalf("outcomes %v, want one not_found", r.Outcomes)
		}
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "a Host problem: the router wants the atespace in the Host")
		wantCheck(t, r, report.CheckReachedParking, report.CheckFailed, "change HostTemplate")
	})
}

// code-NotFound, -PermissionDenied, -Unauthenticated, -DeadlineExceeded,
// -Internal: answered at once from the first attempt; the probe counts
// them as the real router's answers (TestRecordedRouterAnswers' outcomes
// for the same captures).
func TestSimToday_failFastCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*router.Config)
		want report.Outcome
		code int
	}{
		{"code-NotFound", func(c *router.Config) { c.NotFound = []string{"actor-0010"} }, report.NotFound, http.StatusNotFound},
		{"code-PermissionDenied", func(c *router.Config) { c.Deny = []string{"actor-0010"} }, report.PermissionDenied, http.StatusForbidden},
		{"code-Unauthenticated", func(c *router.Config) { c.Unauth = []string{"actor-0010"} }, report.Unauthenticated, http.StatusUnauthorized},
		{"code-DeadlineExceeded", func(c *router.Config) { c.Slow = []string{"actor-0010"} }, report.DeadlineExceeded, http.StatusGatewayTimeout},
		{"code-Internal", func(c *router.Config) { c.Fail = []string{"actor-0010"} }, report.ResumeError, http.StatusInternalServerError},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, o := simToday(t, func(cfg *router.Config) { cfg.ParkedRequestBudget = 2 * time.Second; c.edit(cfg) })
				r := runReplay(t, o)
				if r.Count(c.want) != 1 {
					t.Fatalf("outcomes %v, want one %s (%d)", r.Outcomes, c.want, c.code)
				}
			})
		})
	}
}

// lotfull: a lot of one; the request holding the slot is exhausted after
// the budget, the next two are shed at once, a running actor's too
// (TestReplayLotFull's verdicts). The first request goes to a held actor.
func TestSimToday_lotfull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, o := simToday(t, func(c *router.Config) {
			c.ParkedRequestBudget = 3 * time.Second
			c.ParkedRequestMax = 1
			c.Hold = map[string]router.Hold{"actor-0010": {}, "actor-0020": {}}
		})
		if err := s.ResumeActor(context.Background(), "actor-0001"); err != nil {
			t.Fatal(err)
		}
		o.Mode, o.Requests = Open, 0
		o.Rate, o.Duration = 10, 300*time.Millisecond
		o.Actors = []string{"actor-0010", "actor-0020", "actor-0001"}
		r := runReplay(t, o)
		if r.Count(report.BudgetExhausted) != 1 || r.Count(report.Shed) != 2 {
			t.Fatalf("outcomes %v, want 1 budget_exhausted and 2 shed", r.Outcomes)
		}
		wantCheck(t, r, report.CheckRejectedMatchesShed, report.CheckOK, "grew by 2")
		noFailedChecks(t, r)
	})
}
