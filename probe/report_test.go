package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fakeRouter answers like kindServer and also serves /metrics (counting
// its shed answers as rejections) and /statusz.
func fakeRouter(t *testing.T) *httptest.Server {
	var shed atomic.Int64
	kinds := kindServer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `# HELP atenet_router_parking_active Requests currently parked.
# TYPE atenet_router_parking_active gauge
atenet_router_parking_active{otel_scope_name="atenet-router"} 0
# TYPE atenet_router_parking_rejected_total counter
atenet_router_parking_rejected_total{otel_scope_name="atenet-router"} %d
# TYPE atenet_router_parking_wait_duration_seconds histogram
atenet_router_parking_wait_duration_seconds_bucket{outcome="served",le="1"} 3
atenet_router_parking_wait_duration_seconds_bucket{outcome="served",le="5"} 4
atenet_router_parking_wait_duration_seconds_bucket{outcome="served",le="+Inf"} 4
atenet_router_parking_wait_duration_seconds_sum{outcome="served"} 4.5
atenet_router_parking_wait_duration_seconds_count{outcome="served"} 4
`, shed.Load())
	})
	mux.HandleFunc("/statusz", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "html only", http.StatusNotAcceptable)
			return
		}
		fmt.Fprint(w, `{"parking": {"enabled": true, "active": 0, "max_parked": 1024, "max_wait": 5}}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "shed.") {
			shed.Add(1)
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, kinds.URL, nil)
		req.Host = r.Host
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), 599)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := new(bytes.Buffer)
		buf.ReadFrom(resp.Body)
		w.Write(buf.Bytes())
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// normalise replaces what varies from run to run (times, latencies,
// histograms, ports) so the golden file pins the schema: field names,
// nesting, counts and check verdicts.
func normalise(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			x[k] = normalise(vv, k)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalise(x[i], key)
		}
		return x
	case float64:
		switch key {
		case "p50", "p90", "p99", "max", "fastest_first_seconds", "duration_seconds", "achieved_rate", "open_files_limit", "in_flight", "in_flight_peak", "second", "sent":
			if key == "duration_seconds" && x == 0 {
				return x
			}
			return "<" + key + ">"
		}
	case string:
		switch key {
		case "hdr", "service_hdr", "send_lateness_hdr", "started_at":
			return "<" + key + ">"
		case "target", "url", "run_id":
			return "<" + key + ">"
		case "detail":
			// Check details carry latencies; keep their words.
			return latencyPattern(x)
		}
	}
	return v
}

func latencyPattern(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		core := strings.TrimRight(w, ")")
		if core != "" && core[0] >= '0' && core[0] <= '9' && strings.HasSuffix(core, "s") {
			w = "<duration>" + w[len(core):]
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func TestJSONReportSchema(t *testing.T) {
	srv := fakeRouter(t)
	exps, _ := report.ParseExpectations([]string{"served>=0.5", "p99(shed)<1s"})
	r, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Burst, Requests: 24, Seed: 11,
		Actors:     []string{"served", "shed", "budget-exhausted", "transport-error"},
		MetricsURL: srv.URL + "/metrics", StatuszURL: srv.URL + "/statusz",
		// A loaded test machine is not a slow router: keep shed_fast's
		// verdict stable.
		Checks: report.CheckConfig{Expect: exps, ShedMax: 30 * time.Second,
			// The report as parking-probe writes it: its details name
			// the options by the command's flags (cmd/parkingprobe's
			// tests render every detail with its own table).
			OptionName: func(field string) string { return map[string]string{"Checks.Expect": "--expect"}[field] }},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// The whole burst ends within a second or two; pin one series entry.
	m := doc.(map[string]any)
	// How a burst's requests to one actor overlap (one flight or several)
	// depends on scheduling; the parked check has its own tests.
	delete(m, "flights")
	for _, c := range m["checks"].([]any) {
		if c := c.(map[string]any); c["name"] == report.CheckParked {
			c["detail"] = "<parked>"
		}
	}
	if s, ok := m["series"].([]any); ok && len(s) > 0 {
		m["series"] = s[:1]
		// Whether the run outlasted the first parking_active scrape, and
		// when it was read, depends on the machine.
		delete(s[0].(map[string]any), "parking_active")
		delete(s[0].(map[string]any), "parking_active_at")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(normalise(doc, "")); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden.json", out.Bytes())

	// And what was written reads back, histograms included.
	back, err := report.ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range r.Outcomes {
		b := back.Outcomes[name]
		bl, _, err := b.Histograms()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.Count != s.Count || (s.LatencyHistogram() != nil && !s.LatencyHistogram().Equals(bl)) {
			t.Errorf("%s did not survive JSON: %+v vs %+v", name, s, b)
		}
	}
}

func TestTextReport(t *testing.T) {
	exps, _ := report.ParseExpectations([]string{"served>=0.9", "p99(served)<1s"})
	answers := cat(many(report.Served, 80, 120*time.Millisecond), many(report.Shed, 15, 2*time.Millisecond),
		many(report.BudgetExhausted, 4, 5010*time.Millisecond), many(report.BudgetExhausted, 1, 6500*time.Millisecond))
	r := fakeRun(t, Options{
		MetricsURL: "http://router.test:9090/metrics", StatuszURL: "http://router.test:8081/statusz",
		Checks: report.CheckConfig{Expect: exps}, Seed: 4, Actors: GeneratedActors(50),
	}, answers, func(e *engine) {
		e.metricsBefore = &report.RouterMetrics{ParkingRejectedTotal: f64(10), ParkingActive: f64(0)}
		e.metricsAfter = &report.RouterMetrics{ParkingRejectedTotal: f64(25), ParkingActive: f64(0),
			ParkingWait: map[string]report.WaitStats{"served": {Count: 30, SumSeconds: 15}, "budget_exhausted": {Count: 5, SumSeconds: 25}}}
		e.activePeak = f64(42)
		e.statuszBefore = &report.StatuszParking{Enabled: boolp(true), Active: f64(0), MaxParked: f64(1024), MaxWait: json.RawMessage(`5`)}
		e.statuszAfter = &report.StatuszParking{Enabled: boolp(true), Active: f64(0), MaxParked: f64(1024), MaxWait: json.RawMessage(`"5s"`)}
	})
	r.Stats(report.Served).Details = nil
	var buf bytes.Buffer
	if err := report.WriteText(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden.txt", buf.Bytes())
}

func boolp(b bool) *bool { return &b }

func TestMergeIsExact(t *testing.T) {
	a := fakeRun(t, Options{Seed: 1}, cat(many(report.Served, 50, 100*time.Millisecond), many(report.Shed, 5, time.Millisecond)), func(e *engine) {
		e.o.MetricsURL = "http://router.test/metrics"
		e.metricsBefore = &report.RouterMetrics{ParkingRejectedTotal: f64(100)}
		e.metricsAfter = &report.RouterMetrics{ParkingRejectedTotal: f64(104), ParkingActive: f64(3)}
	})
	b := fakeRun(t, Options{Seed: 2}, cat(many(report.Served, 30, 300*time.Millisecond), many(report.Shed, 7, 3*time.Millisecond), many(report.TransportError, 2, time.Second)), func(e *engine) {
		e.o.MetricsURL = "http://router.test/metrics"
		e.metricsBefore = &report.RouterMetrics{ParkingRejectedTotal: f64(101)}
		e.metricsAfter = &report.RouterMetrics{ParkingRejectedTotal: f64(112), ParkingActive: f64(0)}
	})
	b.StartedAt = a.StartedAt.Add(2 * time.Second)

	// Through JSON, as the files from two machines would come.
	var reports []*report.Report
	for _, r := range []*report.Report{a, b} {
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := report.ReadReport(&buf)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, back)
	}
	m, err := report.Merge(reports, report.CheckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 94 || m.Count(report.Served) != 80 || m.Count(report.Shed) != 12 || m.Count(report.TransportError) != 2 {
		t.Fatalf("merged counts: %d requests, %+v", m.Requests, m.Outcomes)
	}
	// The merged histogram is exactly the histogram of all the answers.
	all := report.NewHistogram()
	for range 50 {
		report.RecordDuration(all, 100*time.Millisecond)
	}
	for range 30 {
		report.RecordDuration(all, 300*time.Millisecond)
	}
	if !m.Stats(report.Served).LatencyHistogram().Equals(all) {
		t.Error("merged served histogram differs from recording every answer in one")
	}
	if p := m.Stats(report.Served).Latency; p.P50 < 0.0999 || p.P50 > 0.1001 || p.Max < 0.2999 || p.Max > 0.3001 {
		t.Errorf("merged served quantiles %+v", p)
	}
	if r := m.Stats(report.Served).Ratio; r != 80.0/94 {
		t.Errorf("served ratio %v", r)
	}
	if m.DurationSeconds != 4 {
		t.Errorf("merged duration %v, want 4s (b started 2s later and ran 2s)", m.DurationSeconds)
	}
	if len(m.Series) != 4 || m.Series[0].InFlightPeak != 55 || m.Series[2].InFlightPeak != 39 || m.Series[3].Outcomes["transport_error"] != 2 {
		t.Errorf("series not aligned on the wall clock: %+v", m.Series)
	}
	// Metrics span from the first scrape before to the last scrape after:
	// 112 - 100 = 12 rejections, the merged shed count.
	if d := m.Metrics.RejectedDelta; d == nil || *d != 12 {
		t.Errorf("merged rejected delta %v", d)
	}
	wantCheck(t, m, report.CheckRejectedMatchesShed, report.CheckOK, "grew by 12")
	wantCheck(t, m, report.CheckActiveDrains, report.CheckOK, "back to 0")
	wantCheck(t, m, report.CheckAllAccounted, report.CheckOK, "94 requests sent, 94 outcomes")
	if m.Target != a.Target || m.Mode != "burst" {
		t.Errorf("target %q mode %q", m.Target, m.Mode)
	}
}

func TestReadReportRefusesWhatCannotMergeExactly(t *testing.T) {
	r := fakeRun(t, Options{}, many(report.Served, 3, time.Millisecond), nil)
	var buf bytes.Buffer
	r.WriteJSON(&buf)
	good := buf.String()
	tests := map[string]string{
		"not json":          "hello",
		"no outcomes":       `{"target": "x"}`,
		"lost histogram":    strings.Replace(good, `"hdr": "`, `"hdr_": "`, 1),
		"count mismatch":    strings.Replace(good, `"count": 3`, `"count": 4`, 1),
		"unknown outcome":   strings.Replace(good, `"served"`, `"servd"`, 1),
		"garbled histogram": strings.Replace(good, `"hdr": "`, `"hdr": "garbage`, 1),
	}
	for name, in := range tests {
		if _, err := report.ReadReport(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := report.ReadReport(strings.NewReader(good)); err != nil {
		t.Errorf("the good report: %v", err)
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP atenet_router_parking_active x
# TYPE atenet_router_parking_active gauge
atenet_router_parking_active{otel_scope_name="a"} 3
atenet_router_parking_active{otel_scope_name="b"} 2
# TYPE atenet_router_parking_rejected_total counter
atenet_router_parking_rejected_total 17
# TYPE atenet_router_parking_wait_duration_seconds histogram
atenet_router_parking_wait_duration_seconds_bucket{outcome="budget_exhausted",le="5"} 1
atenet_router_parking_wait_duration_seconds_bucket{outcome="budget_exhausted",le="10"} 2
atenet_router_parking_wait_duration_seconds_bucket{outcome="budget_exhausted",le="+Inf"} 2
atenet_router_parking_wait_duration_seconds_sum{outcome="budget_exhausted"} 10.2
atenet_router_parking_wait_duration_seconds_count{outcome="budget_exhausted"} 2
# TYPE go_goroutines gauge
go_goroutines 12
`
	m, err := ParseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if deref(m.ParkingActive) != 5 || deref(m.ParkingRejectedTotal) != 17 {
		t.Errorf("active %v rejected %v", m.ParkingActive, m.ParkingRejectedTotal)
	}
	w := m.ParkingWait["budget_exhausted"]
	if w.Count != 2 || w.SumSeconds != 10.2 || len(w.Buckets) != 3 || w.Buckets[1].Count != 2 {
		t.Errorf("wait %+v", w)
	}
	// Before the first measurement an OpenTelemetry instrument is not
	// exported at all: absent, not an error.
	m, err = ParseMetrics(strings.NewReader("# TYPE go_goroutines gauge\ngo_goroutines 3\n"))
	if err != nil || m.ParkingActive != nil || m.ParkingRejectedTotal != nil {
		t.Errorf("empty router: %+v, %v", m, err)
	}
	for _, garbage := range []string{"<html><body>hello</body></html>", "{\"json\": true}", "metric{ 1"} {
		if _, err := ParseMetrics(strings.NewReader(garbage)); err == nil || !strings.Contains(err.Error(), "not Prometheus text") {
			t.Errorf("ParseMetrics(%q) = %v", garbage, err)
		}
	}
}

func TestParseStatusz(t *testing.T) {
	p, err := ParseStatusz(strings.NewReader(`{"parking": {"enabled": false, "active": 0, "max_parked": 0, "max_wait": "5s"}, "other": 1}`))
	if err != nil || p.Enabled == nil || *p.Enabled || string(p.MaxWait) != `"5s"` {
		t.Fatalf("%+v, %v", p, err)
	}
	for _, bad := range []string{"<html>", `{"workers": {}}`, ""} {
		if _, err := ParseStatusz(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseStatusz(%q) accepted", bad)
		}
	}
	if got := statuszURLWithFormat("http://r:8081/statusz"); got != "http://r:8081/statusz?format=json" {
		t.Errorf("got %s", got)
	}
	if got := statuszURLWithFormat("http://r:8081/statusz?format=json&x=1"); got != "http://r:8081/statusz?format=json&x=1" {
		t.Errorf("got %s", got)
	}
}

// TestGarbageMetricsURLStopsBeforeLoad: a metrics URL that answers garbage
// is a clear error, and no load is sent (the checks would be meaningless).
func TestGarbageMetricsURLStopsBeforeLoad(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			fmt.Fprint(w, "<html>not metrics</html>")
			return
		}
		hits.Add(1)
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Options{Target: srv.URL, Requests: 5, Actors: GeneratedActors(1), MetricsURL: srv.URL + "/metrics"})
	if err == nil || r != nil || !strings.Contains(err.Error(), "not Prometheus text") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Run = %v, %v", r, err)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent despite the bad metrics URL", hits.Load())
	}
	_, err = Run(context.Background(), Options{Target: srv.URL, Requests: 5, Actors: GeneratedActors(1), MetricsURL: srv.URL + "/missing"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 200") && !strings.Contains(err.Error(), "not Prometheus") {
		// An empty 200 is valid (no metrics yet); a 404 is not.
		t.Logf("missing metrics path: %v", err)
	}
}

// A run's figure names every outcome seen, carries the router's
// parking_active, and survives the JSON trip into the HTML page unchanged.
func TestFigureOfARun(t *testing.T) {
	answers := cat(many(report.Served, 50, 100*time.Millisecond), many(report.Shed, 20, time.Millisecond), many(report.BudgetExhausted, 5, 5*time.Second))
	r := fakeRun(t, Options{KeepSamples: 1000}, answers, func(e *engine) {
		e.activeSeries[0] = 12
	})
	if len(r.Samples()) != len(answers) {
		t.Fatalf("%d samples kept of %d", len(r.Samples()), len(answers))
	}
	fig, err := report.NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range fig.Spectra {
		names = append(names, fmt.Sprintf("%s=%d", s.Outcome, s.Count))
	}
	if got := strings.Join(names, " "); got != "served=50 shed=20 budget_exhausted=5" {
		t.Errorf("spectra %s", got)
	}
	if len(fig.ParkingActive) != 1 || fig.ParkingActive[0].Y != 12 {
		t.Errorf("parking_active %v, want the scraped 12", fig.ParkingActive)
	}
	raw, err := json.Marshal(fig)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Figure
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, fig) {
		t.Error("the figure changed on its way through JSON")
	}
}

func TestSamplesAreBounded(t *testing.T) {
	rec := newRecorder(2, false, 10, 1)
	for i := range 1000 {
		rec.record(uint64(i), result{outcome: report.Served, doneAt: time.Duration(i) * time.Millisecond})
	}
	if n := len(rec.merge().samples); n != 10 {
		t.Errorf("%d samples kept, want the cap of 10", n)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
