package router

import (
	"context"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// The exporter emits exactly the three Prometheus names, with the right
// types and the wait histogram's second-sized buckets, from the first scrape.
func TestMetricFamilies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startMem(t, testConfig())
		defer h.close()

		fams := h.scrape()
		var names []string
		for n := range fams {
			if strings.HasPrefix(n, "atenet_") || n == "target_info" {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		if want := []string{MetricActive, MetricRejected, "target_info"}; !slices.Equal(names, want) {
			t.Errorf("fresh scrape has %v, want %v (the histogram appears with its first sample)", names, want)
		}
		if fams[MetricActive].GetType() != dto.MetricType_GAUGE || fams[MetricRejected].GetType() != dto.MetricType_COUNTER {
			t.Errorf("types: active %v, rejected %v", fams[MetricActive].GetType(), fams[MetricRejected].GetType())
		}

		served(t, h.get("actor-0001"), "actor-0001")
		fams = h.scrape()
		f := fams[MetricWait]
		if f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric) != 1 {
			t.Fatalf("%s: %v", MetricWait, f)
		}
		var bounds []float64
		for _, b := range f.Metric[0].GetHistogram().GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
		}
		want := []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60, math.Inf(1)}
		if !slices.Equal(bounds, want) {
			t.Errorf("buckets %v, want %v", bounds, want)
		}
		// Every series carries the scope labels the real router's exporter
		// writes (serverboot.InitMetrics, PR #221 4a8f978b: default options).
		got := map[string]string{}
		for _, l := range f.Metric[0].GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		wantLabels := map[string]string{"otel_scope_name": MeterName, "otel_scope_schema_url": "", "otel_scope_version": "", "outcome": "served"}
		if !maps.Equal(got, wantLabels) {
			t.Errorf("labels %v, want %v", got, wantLabels)
		}
	})
}

// canceled: the client disconnected while parked; the slot is released.
// timeout: the request's own deadline expired while parked (504), distinct
// from the park budget.
func TestCanceledAndTimeoutOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 1
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		ctx, cancel := context.WithCancel(context.Background())
		gone := make(chan result, 1)
		go func() { gone <- h.getCtx(ctx, "actor-0002") }()
		time.Sleep(time.Second)
		if st := h.s.Status(); st.Parking.Active != 1 {
			t.Fatalf("%d parked, want 1", st.Parking.Active)
		}
		cancel()
		if r := <-gone; !isCanceled(r.err) {
			t.Fatalf("client saw %v, want its own cancellation", r)
		}
		synctest.Wait()
		if st := h.s.Status(); st.Parking.Active != 0 || st.Extproc.Active != 0 {
			t.Fatalf("after the client left: %d parked, %d in the breaker, want 0", st.Parking.Active, st.Extproc.Active)
		}
		if pm := h.metrics(); pm.count(OutcomeCanceled) != 1 || pm.bucket(OutcomeCanceled, 1) != 1 {
			t.Errorf("canceled waits %v, want one of 1s", pm.waits[OutcomeCanceled])
		}

		// The freed slot admits the next request (the lot holds one).
		r := h.get("actor-0003", RequestTimeoutHeader, "1.5s")
		expect(t, r, http.StatusGatewayTimeout, "actor \"actor-0003\" request timed out")
		within(t, "request with its own 1.5s deadline", r.elapsed, 1500*time.Millisecond, 1501*time.Millisecond)

		r = h.get("actor-0003", RequestTimeoutHeader, "0.25")
		expect(t, r, http.StatusGatewayTimeout, "actor \"actor-0003\" request timed out")
		within(t, "request with its own 0.25s deadline", r.elapsed, 250*time.Millisecond, 251*time.Millisecond)

		pm := h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeCanceled: 1, OutcomeTimeout: 2})
		if pm.bucket(OutcomeTimeout, 0.25) != 1 || pm.bucket(OutcomeTimeout, 2.5) != 2 {
			t.Errorf("timeout waits %v, want 0.25s and 1.5s", pm.waits[OutcomeTimeout])
		}
	})
}

// --request-timeout gives requests without the header a deadline; the
// header overrides it; a malformed header is the client's error.
func TestRequestTimeoutFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.RequestTimeout = 750 * time.Millisecond
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)

		r := h.get("actor-0002")
		expect(t, r, http.StatusGatewayTimeout, "actor \"actor-0002\" request timed out")
		within(t, "request", r.elapsed, 750*time.Millisecond, 751*time.Millisecond)
		r = h.get("actor-0002", RequestTimeoutHeader, "2s")
		within(t, "request with header", r.elapsed, 2*time.Second, 2*time.Second+time.Millisecond)

		for _, v := range []string{"soon", "-1s", "0", "NaN", "1e300"} {
			r := h.get("actor-0002", RequestTimeoutHeader, v)
			if r.code != http.StatusBadRequest || !strings.HasPrefix(r.body, "invalid x-request-timeout") {
				t.Errorf("x-request-timeout %q: %v, want 400", v, r)
			}
		}
		h.checkMetrics(0, map[Outcome]int{OutcomeServed: 1, OutcomeTimeout: 2})
	})
}

// /statusz: the "Request Parking" card as HTML, and as JSON with
// ?format=json or Accept: application/json.
func TestStatusz(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Workers = 1
		cfg.ActorIdle = time.Hour
		cfg.ParkedRequestMax = 4
		cfg.ParkedRequestBudget = 2500 * time.Millisecond
		h := startMem(t, cfg)
		defer h.close()
		h.holdPool(1)
		a, b := h.goGet("actor-0002"), h.goGet("actor-0003")
		synctest.Wait()

		p := h.statusJSON()["parking"]
		// max_wait is a Go duration string, as every real router version
		// writes it (a number here broke consumers written against the
		// simulator; issue 33).
		want := map[string]any{"enabled": true, "active": 2.0, "max_parked": 4.0, "max_wait": "2.5s"}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("parking.%s = %v, want %v (%v)", k, p[k], v, p)
			}
		}
		if len(p) != len(want) {
			t.Errorf("parking has %v, want exactly %v", p, want)
		}

		get := func(url, accept string) (string, string) {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			resp, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.Header.Get("Content-Type"), string(body)
		}
		ct, body := get(h.s.StatusURL(), "application/json;q=0.9, text/plain;q=0.1")
		if ct != "application/json" || !strings.Contains(body, `"max_parked": 4`) {
			t.Errorf("Accept: application/json gave %s %s", ct, body)
		}
		ct, body = get(h.s.StatusURL(), "text/html,application/xhtml+xml")
		if !strings.HasPrefix(ct, "text/html") {
			t.Errorf("browser Accept gave %s", ct)
		}
		for _, s := range []string{"Request Parking", `<dt>Status</dt><dd class="badge">Enabled</dd>`, "<dt>Parked</dt><dd>2 / 4</dd>", "<dt>Max wait</dt><dd>2.5s</dd>"} {
			if !strings.Contains(body, s) {
				t.Errorf("HTML card lacks %q:\n%s", s, body)
			}
		}
		<-a
		<-b
		if p := h.statusJSON()["parking"]; p["active"] != 0.0 {
			t.Errorf("active %v after the parks ended", p["active"])
		}
	})
}

// A fresh simulator with parking disabled says so on the card.
func TestStatuszDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ParkedRequestMax = 0
		h := startMem(t, cfg)
		defer h.close()
		p := h.statusJSON()["parking"]
		if p["enabled"] != false || p["max_parked"] != 0.0 || p["max_wait"] != "5s" {
			t.Errorf("disabled card: %v", p)
		}
	})
}
