package router

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// The seed's "What is not parked": errors that waiting will not fix are
// answered at once, with one ResumeActor call, in both modes.
func TestFailFastTable(t *testing.T) {
	cases := []struct {
		actor string
		code  int
		body  string
		took  time.Duration
	}{
		{"actor-0999", http.StatusNotFound, "actor \"actor-0999\" not found", 0},
		{"actor-0001.elsewhere" + HostSuffix, http.StatusNotFound, "actor \"actor-0001\" not found", 0},
		{"actor-0002", http.StatusForbidden, "actor \"actor-0002\" access denied", 0},
		{"actor-0003", http.StatusUnauthorized, "actor \"actor-0003\" authentication required", 0},
		// A slow resume runs into ateapi's deadline: DeadlineExceeded.
		{"actor-0004", http.StatusGatewayTimeout, "actor \"actor-0004\" request timed out", DefaultResumeLatency},
		{"actor-0005", http.StatusInternalServerError, "error resuming actor \"actor-0005\"", 0},
	}
	for _, parking := range []bool{true, false} {
		name := "parking"
		if !parking {
			name = "disabled"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.Deny = []string{"actor-0002"}
				cfg.Unauth = []string{"default/actor-0003"}
				cfg.Slow = []string{"actor-0004"}
				cfg.Fail = []string{"actor-0005"}
				if !parking {
					cfg.ParkedRequestMax = 0
				}
				h := startMem(t, cfg)
				defer h.close()
				for _, c := range cases {
					before := h.s.ResumeCalls()
					r := h.get(c.actor)
					expect(t, r, c.code, c.body)
					if r.elapsed != c.took {
						t.Errorf("%s answered after %v, want %v (fail fast)", c.actor, r.elapsed, c.took)
					}
					if n := h.s.ResumeCalls() - before; n != 1 {
						t.Errorf("%s: %d ResumeActor calls, want exactly 1 (not retried)", c.actor, n)
					}
				}
				want := map[Outcome]int{OutcomeError: len(cases)}
				if !parking {
					want = nil // never recorded when parking is disabled
				}
				h.checkMetrics(0, want)
			})
		})
	}
}

// Parking disabled (--parked-request-max=0): FailedPrecondition and
// Unavailable are returned at once, there is no admission cap, only Aborted
// is retried (within 15 s), and no parking metric moves.
func TestParkingDisabled(t *testing.T) {
	disabled := func() Config {
		cfg := testConfig()
		cfg.ParkedRequestMax = 0
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		return cfg
	}
	t.Run("FailedPrecondition fails fast", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := startMem(t, disabled())
			defer h.close()
			h.holdPool(1)
			before := h.s.ResumeCalls()
			r := h.get("actor-0002")
			expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
			if r.elapsed != 0 || h.s.ResumeCalls()-before != 1 {
				t.Errorf("answered after %v and %d calls, want at once after 1", r.elapsed, h.s.ResumeCalls()-before)
			}
			h.checkMetrics(0, nil)
		})
	})
	t.Run("Unavailable fails fast", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := disabled()
			cfg.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Minute}}
			h := startMem(t, cfg)
			defer h.close()
			r := h.get("actor-0001")
			expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0001\" unavailable")
			if r.elapsed != 0 || h.s.ResumeCalls() != 1 {
				t.Errorf("answered after %v and %d calls, want at once after 1", r.elapsed, h.s.ResumeCalls())
			}
			h.checkMetrics(0, nil)
		})
	})
	t.Run("Aborted retried within 15s", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := startMem(t, disabled())
			defer h.close()
			if err := h.s.InjectAborted("actor-0001", 2); err != nil {
				t.Fatal(err)
			}
			served(t, h.get("actor-0001"), "actor-0001")
			if n := h.s.ResumeCalls(); n != 3 {
				t.Errorf("%d calls, want 3 (2 Aborted, then OK)", n)
			}
			if err := h.s.InjectAborted("actor-0002", -1); err != nil {
				t.Fatal(err)
			}
			r := h.get("actor-0002")
			expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable")
			within(t, "Aborted retries", r.elapsed, 15*time.Second, 15*time.Second+time.Millisecond)
			h.checkMetrics(0, nil)
		})
	})
	t.Run("no admission cap", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := disabled()
			cfg.ExtprocMaxRequests = 100
			cfg.Abort = map[string]int{}
			const n = 40
			for i := 1; i <= n; i++ {
				cfg.Abort[ActorName(i)] = 0
			}
			h := startMem(t, cfg)
			defer h.close()
			var chs []<-chan result
			for i := 1; i <= n; i++ {
				chs = append(chs, h.goGet(ActorName(i)))
			}
			synctest.Wait()
			st := h.statusJSON()
			if st["parking"]["enabled"] != false || st["parking"]["active"] != 0.0 || st["parking"]["max_parked"] != 0.0 {
				t.Errorf("statusz while disabled: %v", st["parking"])
			}
			if got := h.s.Status().Extproc.Active; got != n {
				t.Errorf("%d requests in the router, want all %d (none shed)", got, n)
			}
			for i, ch := range chs {
				expect(t, <-ch, http.StatusServiceUnavailable, `actor "`+ActorName(i+1)+`" unavailable`)
			}
			h.checkMetrics(0, nil)
		})
	})
}
