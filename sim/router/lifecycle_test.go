package router

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/memnet"
)

// A running actor serves: 200, text/plain, a body naming actor and worker.
func TestServedAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startMem(t, testConfig())
		defer h.close()
		r := h.get("actor-0007.default.actors.resources.substrate.ate.dev:8443")
		served(t, r, "actor-0007")
		if strings.HasSuffix(r.body, "\n") || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Errorf("answer %q (%s): want text/plain without a trailing newline", r.body, r.header.Get("Content-Type"))
		}
		if r.header.Get("x-actor") != "default/actor-0007" || !strings.Contains(r.body, r.header.Get("x-worker")) {
			t.Errorf("headers %v disagree with body %q", r.header, r.body)
		}
		within(t, "cold request", r.elapsed, DefaultResumeLatency+DefaultServiceTime, DefaultResumeLatency+DefaultServiceTime)
		r = h.get("ACTOR-0007.Default.Actors.Resources.Substrate.Ate.Dev.")
		served(t, r, "actor-0007")
		if r.elapsed != DefaultServiceTime {
			t.Errorf("warm request took %v, want the service time", r.elapsed)
		}
	})
}

// A running actor suspends after --actor-idle without traffic and frees
// its worker; traffic keeps it up.
func TestIdleActorSuspends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 2
		h := startMem(t, cfg)
		defer h.close()

		for range 10 {
			served(t, h.get("actor-0001"), "actor-0001")
			time.Sleep(200 * time.Millisecond)
		}
		st := h.s.Status()
		if st.Workers.Busy != 1 || st.Workers.RunningActors != 1 || h.s.ResumeCalls() != 1 {
			t.Fatalf("under steady traffic: %+v, %d resumes; want one running actor resumed once", st.Workers, h.s.ResumeCalls())
		}
		time.Sleep(cfg.ActorIdle)
		synctest.Wait()
		if st := h.s.Status(); st.Workers.Busy != 0 || st.Workers.RunningActors != 0 {
			t.Fatalf("after %v idle: %+v, want the worker freed", cfg.ActorIdle, st.Workers)
		}
		served(t, h.get("actor-0001"), "actor-0001")
		if h.s.ResumeCalls() != 2 {
			t.Errorf("%d resumes, want a second one after the suspension", h.s.ResumeCalls())
		}
	})
}

// Which actors exist: actor-0001…actor-NNNN in the atespace, or any name
// with --any-actor; the router learns it from the control plane (NotFound).
func TestActorRegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Actors = 3
		h := startMem(t, cfg)
		defer h.close()
		served(t, h.get("actor-0003"), "actor-0003")
		for _, a := range []string{"actor-0004", "actor-0000", "actor-3", "actor-00003", "frontend"} {
			expect(t, h.get(a), http.StatusNotFound, `actor "`+a+`" not found`)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.AnyActor = true
		cfg.Actors = 0
		cfg.Atespace = "shop"
		h := startMem(t, cfg)
		defer h.close()
		r := h.get("frontend.shop" + HostSuffix)
		if r.code != http.StatusOK || !strings.HasPrefix(r.body, "actor shop/frontend served by ") {
			t.Errorf("any actor: %v", r)
		}
		expect(t, h.get("frontend.default"+HostSuffix), http.StatusNotFound, "actor \"frontend\" not found")
	})
}

// A Host that does not name an actor is answered 404 "invalid host" before
// any resume: nothing parked, no control-plane call.
func TestInvalidHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startMem(t, testConfig())
		defer h.close()
		for _, c := range []struct{ host, reason string }{
			{"router.test", "not under actors.resources.substrate.ate.dev"},
			{"actor-0001.actors.resources.substrate.ate.dev", "want exactly <actor>.<atespace>"},
			{"a.b.default.actors.resources.substrate.ate.dev", "want exactly <actor>.<atespace>"},
			{"actor_1.default.actors.resources.substrate.ate.dev", `actor name "actor_1": character '_' not allowed`},
			{"-x.default.actors.resources.substrate.ate.dev", `actor name "-x": must not start or end with '-'`},
			{"x..actors.resources.substrate.ate.dev", `atespace "": empty name`},
			{strings.Repeat("a", 64) + ".default.actors.resources.substrate.ate.dev", "longer than 63 characters"},
			{"actor-0001.default.actors.resources.substrate.ate.dev:http", `port "http" is not a number`},
		} {
			r := h.get(c.host)
			if r.code != http.StatusNotFound || !strings.HasPrefix(r.body, "invalid host "+quoteHost(c.host)+": ") || !strings.Contains(r.body, c.reason) {
				t.Errorf("Host %q: %v, want 404 invalid host …%s", c.host, r, c.reason)
			}
		}
		if n := h.s.ResumeCalls(); n != 0 {
			t.Errorf("%d ResumeActor calls for invalid hosts", n)
		}
		h.checkMetrics(0, nil)
	})
}

// Close is graceful: parked requests finish their park and are answered,
// none is dropped, and new connections are refused.
func TestCloseAnswersParkedRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Second
		h := startMem(t, cfg)
		h.holdPool(1)
		var chs []<-chan result
		for _, a := range []string{"actor-0002", "actor-0003", "actor-0002"} {
			chs = append(chs, h.goGet(a))
		}
		synctest.Wait()
		h.tr.CloseIdleConnections()
		closed := make(chan error, 1)
		go func() { closed <- h.s.Close() }()
		synctest.Wait()
		if r := h.get("actor-0001"); r.err == nil {
			t.Errorf("new request during shutdown answered %v, want refused", r)
		}
		// actor-0001 idles out after 1s, so one flight is served and the
		// other exhausts its budget: natural outcomes, all answered.
		codes := map[int]int{}
		for _, ch := range chs {
			r := <-ch
			if r.err != nil {
				t.Fatalf("parked request dropped at shutdown: %v", r.err)
			}
			codes[r.code]++
		}
		if codes[http.StatusOK] < 1 || codes[http.StatusOK]+codes[http.StatusServiceUnavailable] != 3 {
			t.Errorf("answers %v, want 200s and budget 503s", codes)
		}
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		<-h.s.Done()
	})
}

// Shutdown with a short bound cuts the parks short, still answering each.
func TestShutdownBoundCutsParksShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		h := startMem(t, cfg)
		h.holdPool(1)
		a, b := h.goGet("actor-0002"), h.goGet("actor-0003")
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := h.s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("Shutdown took %v with a 100ms bound", d)
		}
		expect(t, <-a, http.StatusServiceUnavailable, "actor \"actor-0002\" unavailable")
		expect(t, <-b, http.StatusServiceUnavailable, "actor \"actor-0003\" unavailable")
		// Close after Shutdown is a no-op.
		if err := h.s.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// The context given to Start stops the server when it ends.
func TestStartContextStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cfg := testConfig()
		cfg.Listener, cfg.MetricsListener, cfg.StatusListener = memnet.NewListener("r:1"), memnet.NewListener("m:1"), memnet.NewListener("s:1")
		s, err := Start(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		<-s.Done()
	})
}
