package router

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// --extproc-max-requests 0 is main-2026-08's default and derives the
// breaker as the real router does: twice the lot, at least 1024. Other
// models take the number as given.
func TestMain202608ExtprocBreakerDerived(t *testing.T) {
	for _, c := range []struct{ lot, given, want int }{
		{1024, 0, 2048}, {100, 0, 1024}, {0, 0, 1024}, {4096, 0, 8192}, {10, 50, 50},
	} {
		cfg := main202608Config()
		cfg.ParkedRequestMax, cfg.ExtprocMaxRequests = c.lot, c.given
		if err := cfg.Validate(); err != nil {
			t.Fatalf("lot %d, breaker %d: %v", c.lot, c.given, err)
		}
		if got := cfg.ExtprocBreaker(); got != c.want {
			t.Errorf("lot %d, --extproc-max-requests %d: breaker %d, want %d", c.lot, c.given, got, c.want)
		}
	}
	seed := testConfig()
	seed.ExtprocMaxRequests = 0
	if seed.Validate() == nil {
		t.Error("the seed model accepted --extproc-max-requests 0")
	}
}

// Envoy's route timeout bounds the worker's answer, not the resume: a
// worker slower than --route-timeout gets Envoy's 504 when it fires.
func TestMain202608RouteTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := main202608Config()
		cfg.ServiceTime = 3 * time.Second
		cfg.RouteTimeout = time.Second
		cfg.Hold = map[string]Hold{"actor-0001": {For: 2 * time.Second}}
		h := startMem(t, cfg)
		defer h.close()
		start := time.Now()
		r := h.getRoot(captureHost("actor-0001"))
		expect(t, r, http.StatusGatewayTimeout, envoyRouteTimeoutBody)
		// Parked through the 2 s hold (to the next retry), then cut after 1 s
		// of service: the route timeout does not count the park.
		within(t, "the answer", time.Since(start), 3*time.Second, 3500*time.Millisecond)
	})
}

// After Ctrl-C main-2026-08 keeps serving for --drain-delay, then drains
// and writes --drain-complete-file.
func TestMain202608Drain(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "drain-complete")
	synctest.Test(t, func(t *testing.T) {
		cfg := main202608Config()
		cfg.DrainDelay = 2 * time.Second
		cfg.DrainCompleteFile = marker
		h := startMem(t, cfg)
		closed := make(chan error, 1)
		go func() { closed <- h.s.Close() }()
		time.Sleep(time.Second)
		if r := h.getRoot(captureHost("actor-0001")); r.err != nil || r.code != http.StatusOK {
			t.Errorf("during the drain delay: %v, want served", r)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("the drain-complete file exists before the drain")
		}
		h.tr.CloseIdleConnections()
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("no drain-complete file after the drain: %v", err)
		}
	})
}

// Requests that wait on one flight: the one that started it is
// ate_router_resume="triggered", the one that joined it "joined", and a
// request for an actor already running "none".
func TestMain202608ResumeLabel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := main202608Config()
		cfg.ActorIdle = time.Hour
		cfg.Hold = map[string]Hold{"actor-0001": {For: time.Second}}
		h := startMem(t, cfg)
		defer h.close()
		first := make(chan result, 1)
		go func() { first <- h.getRoot(captureHost("actor-0001")) }()
		synctest.Wait()
		second := h.getRoot(captureHost("actor-0001"))
		third := h.getRoot(captureHost("actor-0001"))
		for _, r := range []result{<-first, second, third} {
			if r.code != http.StatusOK {
				t.Fatalf("want 200, got %v", r)
			}
		}
		got := map[string]uint64{}
		for _, m := range h.scrape()[MetricRoute].GetMetric() {
			l := labelsOf(m)
			if l["ate_router_outcome"] != "ok" || l["ate_template_namespace"] != captureAtespace || l["ate_template_name"] != SimActorTemplate {
				t.Errorf("unexpected route series %v", l)
			}
			got[l["ate_router_resume"]] += m.GetHistogram().GetSampleCount()
		}
		if got["triggered"] != 1 || got["joined"] != 1 || got["none"] != 1 {
			t.Errorf("ate_router_resume counts %v, want one each of triggered, joined, none", got)
		}
	})
}
