package router

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A request being served by its worker no longer holds an ext_proc stream:
// only the header exchange (and a park) count against the breaker.
func TestServiceDoesNotHoldTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ParkedRequestMax = 1
		cfg.ExtprocMaxRequests = 1
		cfg.ServiceTime = time.Second
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		defer h.close()
		served(t, h.get("actor-0001"), "actor-0001")

		first := h.goGet("actor-0001")
		time.Sleep(500 * time.Millisecond) // first is in service
		r := h.get("actor-0001")
		served(t, r, "actor-0001")
		served(t, <-first, "actor-0001")
	})
}

// --control-plane-latency slows every ResumeActor call; a call that outlives
// the budget ends the park as budget_exhausted (the control plane never
// answered: unavailable).
func TestControlPlaneLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ControlPlaneLatency = 300 * time.Millisecond
		h := startMem(t, cfg)
		defer h.close()
		r := h.get("actor-0001")
		served(t, r, "actor-0001")
		if want := 325 * time.Millisecond; r.elapsed != want {
			t.Errorf("cold request took %v, want latency + resume + service = %v", r.elapsed, want)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ControlPlaneLatency = 8 * time.Second
		h := startMem(t, cfg)
		defer h.close()
		r := h.get("actor-0001")
		expect(t, r, http.StatusServiceUnavailable, "actor \"actor-0001\" unavailable")
		within(t, "park", r.elapsed, 5*time.Second, 5*time.Second+time.Millisecond)
		h.checkMetrics(0, map[Outcome]int{OutcomeBudgetExhausted: 1})
	})
}

// --abort ACTOR=N answers Aborted N times, then the resume goes through;
// --abort-rate makes a share of all resumes answer Aborted.
func TestAbortInjection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Abort = map[string]int{"actor-0001": 2, "default/actor-0002": 0}
		h := startMem(t, cfg)
		defer h.close()
		served(t, h.get("actor-0001"), "actor-0001")
		if n := h.s.ResumeCalls(); n != 3 {
			t.Errorf("%d calls for --abort actor-0001=2, want 3", n)
		}
		expect(t, h.get("actor-0002"), http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable")
		if err := h.s.ClearAborted("actor-0002"); err != nil {
			t.Fatal(err)
		}
		served(t, h.get("actor-0002"), "actor-0002")
		if err := h.s.InjectAborted("Not An Actor", 1); err == nil {
			t.Error("InjectAborted accepted an invalid name")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.AbortRate = 1
		h := startMem(t, cfg)
		defer h.close()
		expect(t, h.get("actor-0001"), http.StatusServiceUnavailable, "actor \"actor-0001\" unavailable")
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.AbortRate = 0.5
		h := startMem(t, cfg)
		defer h.close()
		aborted := 0
		for i := 1; i <= 20; i++ {
			before := h.s.ResumeCalls()
			served(t, h.get(ActorName(i)), ActorName(i))
			aborted += int(h.s.ResumeCalls() - before - 1)
		}
		if aborted < 5 || aborted > 60 {
			t.Errorf("%d Aborted answers over 20 cold resumes at rate 0.5", aborted)
		}
	})
}

// Two resumes racing for one actor, as from two router replicas: the
// second answers Aborted while the first holds the actor.
func TestConcurrentResumeAnswersAborted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startMem(t, testConfig())
		defer h.close()
		a := h.s.cp.lookup("default", "actor-0001")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { _, errs[i] = h.s.cp.resume(context.Background(), a.ref, a) })
			synctest.Wait() // the first is resuming before the second asks
		}
		wg.Wait()
		var st *StatusError
		if errs[0] != nil || !errors.As(errs[1], &st) || st.Code != Aborted {
			t.Fatalf("racing resumes answered %v and %v, want OK and Aborted", errs[0], errs[1])
		}
		if resumed, err := h.s.cp.resume(context.Background(), a.ref, a); err != nil || resumed {
			t.Errorf("resume of a running actor: %v (resumed %v), want OK and no resume", err, resumed)
		}
		if busy := h.s.Status().Workers.Busy; busy != 1 {
			t.Errorf("%d workers busy, want 1 (the race claimed no second worker)", busy)
		}
	})
}
