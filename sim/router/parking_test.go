package router

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The seed's "Behavior" section, scenario by scenario, on the virtual clock.

// FailedPrecondition is parked and retried: the request rides out pool
// saturation and is served once another actor suspends and frees a worker.
func TestFailedPreconditionParksUntilAWorkerFrees(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Second
		h := startMem(t, cfg)
		defer h.close()

		served(t, h.get("actor-0001"), "actor-0001")
		calls := h.s.ResumeCalls()
		r := h.get("actor-0002")
		served(t, r, "actor-0002")
		// actor-0001 idles out a second after its last request; the next
		// retry of the flight (backoff 100 ms × 1.1ⁿ) then finds its worker.
		within(t, "parked request", r.elapsed, time.Second, 1300*time.Millisecond)
		if n := h.s.ResumeCalls() - calls; n < 5 {
			t.Errorf("%d ResumeActor calls for the parked request, want several retries", n)
		}
		pm := h.checkMetrics(0, map[Outcome]int{OutcomeServed: 2})
		if pm.bucket(OutcomeServed, 0.025) != 1 || pm.bucket(OutcomeServed, 1) != 1 || pm.bucket(OutcomeServed, 2.5) != 2 {
			t.Errorf("served waits not bucketed as 20ms and ~1.2s: %v", pm.waits[OutcomeServed])
		}
	})
}

// Unavailable (a control-plane blip such as an ateapi rolling restart) is
// parked and retried too.
func TestUnavailableParksUntilControlPlaneReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Second}}
		h := startMem(t, cfg)
		defer h.close()

		r := h.get("actor-0001")
		served(t, r, "actor-0001")
		within(t, "parked request", r.elapsed, time.Second, 1300*time.Millisecond)
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1})
	})
}

// An outage longer than the budget ends the park as budget_exhausted with
// the control plane's own answer: 503 "actor <ref> unavailable".
func TestUnavailableBeyondBudgetExhausts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ControlPlaneUnavailable = []Window{{Start: 0, Duration: time.Minute}}
		h := startMem(t, cfg)
		defer h.close()

		r := h.get("actor-0001")
		expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0001\" unavailable")
		within(t, "exhausted park", r.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		h.checkMetrics(0, map[Outcome]int{OutcomeBudgetExhausted: 1})
	})
}

// Aborted (a concurrent resume, as from a second router replica) is always
// retried.
func TestAbortedIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startMem(t, testConfig())
		defer h.close()

		if err := h.s.InjectAborted("actor-0001", 3); err != nil {
			t.Fatal(err)
		}
		r := h.get("actor-0001")
		served(t, r, "actor-0001")
		if n := h.s.ResumeCalls(); n != 4 {
			t.Errorf("%d ResumeActor calls, want 4 (3 Aborted, then OK)", n)
		}
		// Backoff 100 + 110 + 121 ms, the 20 ms resume and 5 ms service.
		within(t, "request", r.elapsed, 356*time.Millisecond, 357*time.Millisecond)

		// An actor held for good by a concurrent operation exhausts the
		// budget: budget_exhausted, answered as unavailable.
		if err := h.s.InjectAborted("actor-0002", 0); err != nil {
			t.Fatal(err)
		}
		r = h.get("actor-0002")
		expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable")
		within(t, "exhausted park", r.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 1})
	})
}

// The budget elapses while the pool stays saturated: 503 "no free workers
// available", exactly one budget after the park began.
func TestBudgetExhaustion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestBudget = 3 * time.Second
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		r := h.get("actor-0002")
		expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
		within(t, "exhausted park", r.elapsed, 3*time.Second, 3*time.Second+time.Millisecond)
		pm := h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 1})
		if pm.bucket(OutcomeBudgetExhausted, 2.5) != 0 || pm.bucket(OutcomeBudgetExhausted, 5) != 1 {
			t.Errorf("budget_exhausted wait not in (2.5, 5]: %v", pm.waits[OutcomeBudgetExhausted])
		}
		if s := pm.waits[OutcomeBudgetExhausted].GetSampleSum(); s < 3 || s > 3.001 {
			t.Errorf("recorded wait %vs, want 3s", s)
		}
	})
}

// Retries back off exponentially from --parked-request-retry-interval by
// --parked-request-retry-factor, with no cap and no attempt limit.
func TestBackoffSchedule(t *testing.T) {
	attemptGaps := func(t *testing.T, cfg Config) []time.Duration {
		t.Helper()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)
		var mu sync.Mutex
		var times []time.Time
		h.s.cp.onCall = func(ref string, at time.Time, _ error) {
			if ref == "default/actor-0002" {
				mu.Lock()
				times = append(times, at)
				mu.Unlock()
			}
		}
		expect(t, h.get("actor-0002"), http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
		mu.Lock()
		defer mu.Unlock()
		var gaps []time.Duration
		for i := 1; i < len(times); i++ {
			gaps = append(gaps, times[i].Sub(times[i-1]))
		}
		return gaps
	}

	t.Run("exponential", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			gaps := attemptGaps(t, testConfig())
			want := 100 * time.Millisecond
			var sum time.Duration
			for i, g := range gaps {
				if d := g - want; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("gap %d is %v, want %v (gaps %v)", i, g, want, gaps)
				}
				sum += g
				want = time.Duration(float64(want) * 1.1)
			}
			// The attempts stop only because the next wait would end past
			// the 5 s budget.
			if sum+want <= 5*time.Second || sum > 5*time.Second {
				t.Errorf("attempts span %v and the next wait is %v: budget 5s not the bound", sum, want)
			}
		})
	})
	t.Run("no cap and no attempt limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig()
			cfg.ParkedRequestBudget = 60 * time.Second
			gaps := attemptGaps(t, cfg)
			if last := gaps[len(gaps)-1]; last < 5*time.Second {
				t.Errorf("last retry delay %v: the backoff looks capped", last)
			}
			cfg = testConfig()
			cfg.ParkedRequestRetryFactor = 1
			cfg.ParkedRequestBudget = 4950 * time.Millisecond
			if gaps := attemptGaps(t, cfg); len(gaps) != 49 {
				t.Errorf("%d retries at a constant 100ms in 4.95s, want 49 (50 attempts)", len(gaps))
			}
		})
	})
	t.Run("jitter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig()
			cfg.ParkedRequestRetryJitter = 0.5
			gaps := attemptGaps(t, cfg)
			base := 100 * time.Millisecond
			distinct := map[int64]bool{}
			for i, g := range gaps {
				ratio := float64(g) / float64(base)
				if ratio < 1 || ratio >= 1.5 {
					t.Errorf("gap %d is %v, outside [%v, %v)", i, g, base, time.Duration(1.5*float64(base)))
				}
				distinct[int64(ratio*1000)] = true
				base = time.Duration(float64(base) * 1.1)
			}
			if len(distinct) < len(gaps)/2 {
				t.Errorf("jitter barely varies the delays: %v", gaps)
			}
		})
	})
}

// A full lot sheds at once with 503 "router at capacity" (quoted id), counts
// in parking.rejected, and never in the wait histogram.
func TestFullLotSheds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 3
		cfg.ExtprocMaxRequests = 10
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		parked := map[string]<-chan result{}
		for _, a := range []string{"actor-0002", "actor-0003", "actor-0004"} {
			parked[a] = h.goGet(a)
		}
		synctest.Wait()
		if st := h.s.Status(); st.Parking.Active != 3 {
			t.Fatalf("%d parked, want 3", st.Parking.Active)
		}
		if pm := h.metrics(); pm.active != 3 {
			t.Errorf("%s = %v while 3 are parked", MetricActive, pm.active)
		}
		calls := h.s.ResumeCalls()
		r := h.get("actor-0005")
		expect(t, r, http.StatusServiceUnavailable, `actor "actor-0005" unavailable: router at capacity`)
		if r.elapsed != 0 {
			t.Errorf("shed after %v, want at once", r.elapsed)
		}
		if pm := h.metrics(); pm.rejected != 1 || pm.total() != 1 {
			t.Errorf("after one shed: rejected %v (want 1), waits recorded %d (want 1: the pool holder)", pm.rejected, pm.total())
		}
		// Shedding never asks the control plane. (The three flights sleep
		// in backoff meanwhile, so the count is still.)
		if n := h.s.ResumeCalls(); n != calls {
			t.Errorf("shed request made %d ResumeActor calls", n-calls)
		}
		for a, ch := range parked {
			expect(t, <-ch, http.StatusServiceUnavailable, `actor "`+a+`" unavailable: no free workers available`)
		}
		h.checkMetrics(1, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 3})
	})
}

// Each in-flight resume request occupies one lot slot, even when it shares
// its actor's flight: a hot actor consumes N slots.
func TestEachParkedRequestTakesASlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 2
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		a, b := h.goGet("actor-0002"), h.goGet("actor-0002")
		synctest.Wait()
		if st := h.s.Status(); st.Parking.Active != 2 {
			t.Fatalf("%d parked, want 2 (two requests, one actor)", st.Parking.Active)
		}
		expect(t, h.get("actor-0002"), http.StatusServiceUnavailable, `actor "actor-0002" unavailable: router at capacity`)
		for _, ch := range []<-chan result{a, b} {
			expect(t, <-ch, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
		}
		h.checkMetrics(1, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 2})
	})
}

// Concurrent requests for one actor share a single ResumeActor call: N
// parking slots, one control-plane RPC.
func TestOneControlPlaneCallPerHotActor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 4
		h := startMem(t, cfg)
		defer h.close()

		const n = 25
		var chs []<-chan result
		for range n {
			chs = append(chs, h.goGet("actor-0002"))
		}
		synctest.Wait()
		if st := h.s.Status(); st.Parking.Active != n {
			t.Errorf("%d parked during the resume, want %d", st.Parking.Active, n)
		}
		workers := map[string]bool{}
		for _, ch := range chs {
			r := <-ch
			served(t, r, "actor-0002")
			workers[r.header.Get("x-worker")] = true
		}
		if calls := h.s.ResumeCalls(); calls != 1 {
			t.Errorf("%d ResumeActor calls for %d concurrent requests, want 1", calls, n)
		}
		if len(workers) != 1 {
			t.Errorf("one actor served from workers %v", workers)
		}
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: n})
	})
}

// Under saturation a hot actor's N parked requests make the retries of one
// flight, not N.
func TestSaturatedHotActorRetriesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		base := h.s.ResumeCalls()
		expect(t, h.get("actor-0002"), http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
		one := h.s.ResumeCalls() - base

		base = h.s.ResumeCalls()
		var chs []<-chan result
		for range 10 {
			chs = append(chs, h.goGet("actor-0003"))
		}
		for _, ch := range chs {
			r := <-ch
			expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0003\" unavailable: no free workers available")
			within(t, "parked request", r.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		}
		if ten := h.s.ResumeCalls() - base; ten != one {
			t.Errorf("10 parked requests made %d ResumeActor calls, one request %d", ten, one)
		}
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 11})
	})
}

// The budget is per flight: a request that joins late shares the flight's
// remaining budget and its outcome, so it sees budget_exhausted after far
// less than a budget, and the histogram records its own short wait.
func TestLateJoinerSharesFlightBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		base := h.s.ResumeCalls()
		first := h.goGet("actor-0002")
		time.Sleep(4200 * time.Millisecond)
		late := h.goGet("actor-0002")
		rf, rl := <-first, <-late
		for _, r := range []result{rf, rl} {
			expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable: no free workers available")
		}
		within(t, "first request", rf.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		within(t, "late joiner", rl.elapsed, 800*time.Millisecond, 801*time.Millisecond)
		flight := h.s.ResumeCalls() - base

		pm := h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 2})
		if pm.bucket(OutcomeBudgetExhausted, 0.5) != 0 || pm.bucket(OutcomeBudgetExhausted, 1) != 1 || pm.bucket(OutcomeBudgetExhausted, 10) != 2 {
			t.Errorf("want one sub-budget (0.8s) and one full (5s) budget_exhausted wait: %v", pm.waits[OutcomeBudgetExhausted])
		}

		// A request after the flight ended starts a new flight with a
		// whole budget of its own.
		r := h.get("actor-0002")
		within(t, "new flight", r.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		if again := h.s.ResumeCalls() - base - flight; again != flight {
			t.Errorf("second flight made %d calls, first %d", again, flight)
		}
	})
}

// The breaker's excess over the lot is fast-path headroom: a saturated lot
// does not starve requests to actors that are already running.
func TestFullLotLeavesFastPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 1
		cfg.ExtprocMaxRequests = 2
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		parked := h.goGet("actor-0002")
		synctest.Wait()
		expect(t, h.get("actor-0003"), http.StatusServiceUnavailable, `actor "actor-0003" unavailable: router at capacity`)
		r := h.get("actor-0001")
		served(t, r, "actor-0001")
		if r.elapsed != cfg.ServiceTime {
			t.Errorf("fast path took %v beside a full lot, want the service time %v", r.elapsed, cfg.ServiceTime)
		}
		<-parked
		h.checkMetrics(1, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 1})
	})
}

// More requests in the router than --extproc-max-requests are refused by
// Envoy's breaker, not the router, and never counted in parking.rejected.
// Real Envoy fails the ext_proc stream: status_on_error, 500 with an empty
// body; --breaker-overflow-503 gives an upstream cluster's 503 instead.
func TestExtprocBreakerOverflow(t *testing.T) {
	for _, as503 := range []bool{false, true} {
		t.Run(fmt.Sprintf("overflow503=%v", as503), func(t *testing.T) { testExtprocBreakerOverflow(t, as503) })
	}
}

func testExtprocBreakerOverflow(t *testing.T, as503 bool) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.BreakerOverflow503 = as503
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 2
		cfg.ExtprocMaxRequests = 2
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		a, b := h.goGet("actor-0002"), h.goGet("actor-0003")
		synctest.Wait()
		for _, actor := range []string{"actor-0001", "actor-0004", "not a host"} {
			r := h.get(actor)
			if !as503 {
				expect(t, r, http.StatusInternalServerError, "")
				if r.header.Get("x-envoy-overloaded") != "" {
					t.Errorf("ext_proc failure with x-envoy-overloaded: %v", r.header)
				}
				continue
			}
			expect(t, r, http.StatusServiceUnavailable, "upstream connect error or disconnect/reset before headers. reset reason: overflow")
			if r.header.Get("x-envoy-overloaded") != "true" {
				t.Errorf("overflow answer without x-envoy-overloaded: %v", r.header)
			}
		}
		<-a
		<-b
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 2})
		// The breaker's streams are back: the fast path works again.
		served(t, h.get("actor-0001"), "actor-0001")
	})
}

// A breaker below the lot (allowed only on request, to rehearse the
// misconfiguration) silently truncates it: Envoy rejects the overflow with
// empty 500s that never reach the lot and never count in parking.rejected.
func TestBreakerBelowLotTruncatesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 4
		cfg.ExtprocMaxRequests = 2
		if err := cfg.Validate(); err == nil {
			t.Fatal("a breaker below the lot passed validation")
		}
		cfg.AllowBreakerBelowLot = true
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		a, b := h.goGet("actor-0002"), h.goGet("actor-0003")
		synctest.Wait()
		r := h.get("actor-0004")
		if r.code != http.StatusInternalServerError || r.body != "" {
			t.Fatalf("third request with 2 of 4 slots parked: %v, want Envoy's empty 500", r)
		}
		if st := h.s.Status(); st.Parking.Active != 2 || st.Parking.MaxParked != 4 {
			t.Errorf("lot %d/%d: want 2 of 4, the rest unreachable", st.Parking.Active, st.Parking.MaxParked)
		}
		<-a
		<-b
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeBudgetExhausted: 2})
	})
}
