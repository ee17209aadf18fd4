package router

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/shakenfist/shakectl/internal/memnet"
)

// testConfig is the defaults with ephemeral addresses, a fixed seed and no
// jitter, so timings on the virtual clock are exact.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Listen, cfg.MetricsListen, cfg.StatusListen = "", "", ""
	cfg.ParkedRequestRetryJitter = 0
	cfg.Seed = 1
	return cfg
}

// harness is a running simulator and a client for it.
type harness struct {
	t      testing.TB
	s      *Server
	tr     *http.Transport
	client *http.Client
	// router is the router's listener when it is in memory, for raw
	// connections to it.
	router *memnet.Listener
}

// startMem runs the simulator over in-memory listeners: for synctest
// bubbles, where real sockets are not allowed.
func startMem(t testing.TB, cfg Config) *harness {
	t.Helper()
	ls := []*memnet.Listener{memnet.NewListener("router.test:80"), memnet.NewListener("metrics.test:80"), memnet.NewListener("status.test:80")}
	cfg.Listener, cfg.MetricsListener, cfg.StatusListener = ls[0], ls[1], ls[2]
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tr := memnet.Transport(ls...)
	return &harness{t: t, s: s, tr: tr, client: &http.Client{Transport: tr}, router: ls[0]}
}

// startTCP runs the simulator on loopback TCP.
func startTCP(t testing.TB, cfg Config) *harness {
	t.Helper()
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	h := &harness{t: t, s: s, tr: tr, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	t.Cleanup(h.close)
	return h
}

// close stops the client and the simulator; Close must not fail.
func (h *harness) close() {
	h.tr.CloseIdleConnections()
	if err := h.s.Close(); err != nil {
		h.t.Errorf("Close: %v", err)
	}
}

func hostFor(actor string) string { return actor + ".default" + HostSuffix }

// result is one answer as a client sees it.
type result struct {
	code    int
	body    string
	header  http.Header
	elapsed time.Duration
	err     error
}

func (r result) String() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	return http.StatusText(r.code) + " " + r.body
}

// get asks the router for actor (a bare name is put in the default
// atespace's host; a name with a dot is used as the Host header as is).
func (h *harness) get(actor string, hdr ...string) result {
	return h.getCtx(context.Background(), actor, hdr...)
}

func (h *harness) getCtx(ctx context.Context, actor string, hdr ...string) result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.s.URL()+"/some/path?q=1", nil)
	if err != nil {
		return result{err: err}
	}
	req.Host = actor
	if !strings.Contains(actor, ".") {
		req.Host = hostFor(actor)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	start := time.Now()
	resp, err := h.client.Do(req)
	if err != nil {
		return result{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: string(b), header: resp.Header, elapsed: time.Since(start), err: err}
}

// goGet sends the request in the background.
func (h *harness) goGet(actor string, hdr ...string) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- h.get(actor, hdr...) }()
	return ch
}

// expect checks an answer's status and exact body.
func expect(t testing.TB, r result, code int, body string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v (want %d %q)", r.err, code, body)
	}
	if r.code != code || r.body != body {
		t.Fatalf("got %d %q, want %d %q", r.code, r.body, code, body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want text/plain", ct)
	}
}

// served checks a 200 from the actor.
func served(t testing.TB, r result, actor string) {
	t.Helper()
	if r.err != nil || r.code != http.StatusOK {
		t.Fatalf("want 200 from %s, got %v", actor, r)
	}
	if !strings.HasPrefix(r.body, "actor default/"+actor+" served by worker-") {
		t.Fatalf("body %q does not name actor %s and its worker", r.body, actor)
	}
}

// holdPool makes actor-0001 … actor-NNNN running and keeps them up (the
// config must have a long ActorIdle), so every worker is busy.
func (h *harness) holdPool(n int) {
	h.t.Helper()
	for i := 1; i <= n; i++ {
		served(h.t, h.get(ActorName(i)), ActorName(i))
	}
	if st := h.s.Status(); st.Workers.Busy != st.Workers.Total {
		h.t.Fatalf("pool not saturated: %+v", st.Workers)
	}
}

// scrape reads /metrics with the Prometheus text parser.
func (h *harness) scrape() map[string]*dto.MetricFamily {
	h.t.Helper()
	resp, err := h.client.Get(h.s.MetricsURL())
	if err != nil {
		h.t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		h.t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// parkingMetrics is the parking instruments' values in one scrape.
type parkingMetrics struct {
	active   float64
	rejected float64
	waits    map[Outcome]*dto.Histogram
}

func (h *harness) metrics() parkingMetrics {
	h.t.Helper()
	fams := h.scrape()
	pm := parkingMetrics{waits: map[Outcome]*dto.Histogram{}}
	// The real routers' series appear only once used: absent is zero there.
	absentIsZero := !h.s.cfg.traits().zeroAtStart
	if f := fams[MetricActive]; f != nil && len(f.Metric) == 1 {
		pm.active = f.Metric[0].GetGauge().GetValue()
	} else if f != nil || !absentIsZero {
		h.t.Fatalf("%s missing or not one series: %v", MetricActive, f)
	}
	if f := fams[MetricRejected]; f != nil && len(f.Metric) == 1 {
		pm.rejected = f.Metric[0].GetCounter().GetValue()
	} else if f != nil || !absentIsZero {
		h.t.Fatalf("%s missing or not one series: %v", MetricRejected, f)
	}
	if f := fams[MetricWait]; f != nil {
		for _, m := range f.Metric {
			var o Outcome
			for _, l := range m.Label {
				if l.GetName() == "outcome" {
					o = Outcome(l.GetValue())
				}
			}
			pm.waits[o] = m.GetHistogram()
		}
	}
	return pm
}

// count is how many waits ended with outcome.
func (pm parkingMetrics) count(o Outcome) uint64 {
	if hg := pm.waits[o]; hg != nil {
		return hg.GetSampleCount()
	}
	return 0
}

// total is how many waits were recorded, all outcomes.
func (pm parkingMetrics) total() uint64 {
	var n uint64
	for _, hg := range pm.waits {
		n += hg.GetSampleCount()
	}
	return n
}

// bucket is the cumulative count of outcome's waits at or below le seconds.
func (pm parkingMetrics) bucket(o Outcome, le float64) uint64 {
	for _, b := range pm.waits[o].GetBucket() {
		if math.Abs(b.GetUpperBound()-le) < 1e-9 {
			return b.GetCumulativeCount()
		}
	}
	return 0
}

// checkMetrics asserts the parking instruments after a scenario: active
// back to zero, the rejected count, and the number of waits per outcome
// (outcomes not listed must have none).
func (h *harness) checkMetrics(rejected int, waits map[Outcome]int) parkingMetrics {
	h.t.Helper()
	pm := h.metrics()
	if pm.active != 0 {
		h.t.Errorf("%s = %v after the scenario, want 0", MetricActive, pm.active)
	}
	if pm.rejected != float64(rejected) {
		h.t.Errorf("%s = %v, want %d", MetricRejected, pm.rejected, rejected)
	}
	for _, o := range Outcomes {
		if got, want := pm.count(o), uint64(waits[o]); got != want {
			h.t.Errorf("%s{outcome=%q} count = %d, want %d", MetricWait, o, got, want)
		}
	}
	return pm
}

// statusJSON reads /statusz?format=json.
func (h *harness) statusJSON() map[string]map[string]any {
	h.t.Helper()
	resp, err := h.client.Get(h.s.StatusURL() + "?format=json")
	if err != nil {
		h.t.Fatalf("statusz: %v", err)
	}
	defer resp.Body.Close()
	var v map[string]map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		h.t.Fatalf("statusz json: %v", err)
	}
	return v
}

// within checks d is in [lo, hi].
func within(t testing.TB, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s took %v, want between %v and %v", what, d, lo, hi)
	}
}

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
