package router

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
)

// The requests a scrape can make, for both handlers: the formats a
// Prometheus server, a curl and the probe ask for, gzip and not, and the
// name[] filter.
var scrapeRequests = []struct {
	name, target string
	accept, enc  string
}{
	{"plain", "/metrics", "", ""},
	{"text", "/metrics", "text/plain", ""},
	{"text 0.0.4", "/metrics", "text/plain;version=0.0.4", ""},
	{"prometheus server", "/metrics", "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2", "gzip"},
	{"openmetrics only", "/metrics", "application/openmetrics-text; version=1.0.0", ""},
	{"protobuf", "/metrics", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", ""},
	{"protobuf text", "/metrics", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text", ""},
	{"gzip", "/metrics", "", "gzip"},
	{"go client", "/metrics", "", "gzip, deflate"},
	{"gzip refused", "/metrics", "", "gzip;q=0, identity"},
	{"gzip at q=0 only", "/metrics", "", "gzip;q=0"},
	{"malformed q", "/metrics", "", "gzip;level=1, identity"},
	{"identity preferred", "/metrics", "", "identity, gzip;q=0.5"},
	{"any encoding", "/metrics", "", "*"},
	{"name filter", "/metrics?name[]=target_info&name[]=" + MetricRejected, "", ""},
}

// scrapeBoth asks both handlers the same questions and fails on any
// difference in status, the headers promhttp sets, or the body's bytes.
func scrapeBoth(t *testing.T, step string, ours, official http.Handler) {
	t.Helper()
	for _, rq := range scrapeRequests {
		get := func(h http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodGet, rq.target, nil)
			if rq.accept != "" {
				req.Header.Set("Accept", rq.accept)
			}
			if rq.enc != "" {
				req.Header.Set("Accept-Encoding", rq.enc)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		want, got := get(official), get(ours)
		if got.Code != want.Code {
			t.Errorf("%s, %s: status %d, the exporter gives %d", step, rq.name, got.Code, want.Code)
		}
		for _, h := range []string{"Content-Type", "Content-Encoding", "Vary"} {
			if g, w := got.Header().Values(h), want.Header().Values(h); !slices.Equal(g, w) {
				t.Errorf("%s, %s: %s %q, the exporter gives %q", step, rq.name, h, g, w)
			}
		}
		if g, w := got.Body.String(), want.Body.String(); g != w {
			t.Errorf("%s, %s: the body differs from the exporter's\n--- ours\n%s\n--- exporter\n%s", step, rq.name, g, w)
		}
	}
}

// newBothExporters builds the simulator's metrics with the official
// exporter (v0.69.0, default options, own registry, promhttp defaults: what
// the real router serves) reading the same instruments.
func newBothExporters(t *testing.T, zeroAtStart bool) (*metrics, http.Handler) {
	t.Helper()
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMetrics(zeroAtStart, exp)
	if err != nil {
		t.Fatal(err)
	}
	return m, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// TestBridgeMatchesOfficialExporter: /metrics is byte for byte what the
// OTel Prometheus exporter writes, through every state the simulator's
// parking goes through, in every format a scraper can ask for.
func TestBridgeMatchesOfficialExporter(t *testing.T) {
	for _, zero := range []bool{false, true} {
		name := "used-only"
		if zero {
			name = "zeroAtStart"
		}
		t.Run(name, func(t *testing.T) {
			m, official := newBothExporters(t, zero)
			scrapeBoth(t, "nothing used", m.handler, official)

			m.parked(1)
			m.parked(1)
			scrapeBoth(t, "two parked", m.handler, official)
			m.parked(-1)
			scrapeBoth(t, "one unparked", m.handler, official)

			// One wait per outcome, then waits across every bucket, below
			// the first bound, on a bound and beyond the last.
			for i, o := range Outcomes {
				m.waited(time.Duration(i+1)*7*time.Millisecond, o)
				scrapeBoth(t, "waited "+string(o), m.handler, official)
			}
			for _, s := range []float64{0.0002, 0.001, 0.004, 0.01, 0.02, 0.07, 0.25, 0.3, 0.9, 2, 4, 7, 12, 20, 40, 59, 60, 61, 300} {
				m.waited(time.Duration(s*float64(time.Second)), OutcomeServed)
				m.waited(time.Duration(s*float64(time.Second)), OutcomeTimeout)
			}
			scrapeBoth(t, "waits across buckets", m.handler, official)

			m.shed()
			scrapeBoth(t, "one rejected", m.handler, official)
			m.shed()
			m.shed()
			m.parked(-1)
			scrapeBoth(t, "three rejected, none parked", m.handler, official)

			if err := m.shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			scrapeBoth(t, "after shutdown", m.handler, official)
		})
	}
}

// TestBridgeMatchesOfficialExporterBeyondTheSim: the naming the simulator
// does not exercise yet (other scopes, scope attributes, attribute names to
// sanitise and that collide, float and int instruments of every kind)
// still matches the exporter.
func TestBridgeMatchesOfficialExporterBeyondTheSim(t *testing.T) {
	m, official := newBothExporters(t, false)
	ctx := context.Background()
	meter := m.provider.Meter("other.scope",
		metric.WithInstrumentationVersion("v1.2.3"),
		metric.WithSchemaURL("https://opentelemetry.io/schemas/1.26.0"),
		metric.WithInstrumentationAttributes(attribute.String("team.name", "routing"), attribute.String("name", "ignored")))
	fc, err := meter.Float64Counter("bytes.sent", metric.WithUnit("By"), metric.WithDescription("bytes sent"))
	if err != nil {
		t.Fatal(err)
	}
	ig, err := meter.Int64Gauge("queue.depth", metric.WithUnit("1"), metric.WithDescription(`a "quoted" help
on two lines \ with a backslash`))
	if err != nil {
		t.Fatal(err)
	}
	fu, err := meter.Float64UpDownCounter("temperature", metric.WithUnit("Cel"))
	if err != nil {
		t.Fatal(err)
	}
	ih, err := meter.Int64Histogram("request.size", metric.WithUnit("KiBy"), metric.WithExplicitBucketBoundaries(1, 10, 100))
	if err != nil {
		t.Fatal(err)
	}
	rate, err := meter.Float64Counter("requests.rate", metric.WithUnit("1/s"))
	if err != nil {
		t.Fatal(err)
	}
	// Not compared: one name in two scopes with two descriptions. Both
	// keep the first description they see, but the SDK hands each reader
	// its scopes in map order, so which is first differs between readers
	// (and between runs of the exporter alone).
	scrapeBoth(t, "instruments created", m.handler, official)

	m.shed()
	fc.Add(ctx, 1.5, metric.WithAttributes(attribute.String("http.method", "GET"), attribute.Int("123code", 200)))
	fc.Add(ctx, 2, metric.WithAttributes(attribute.String("http.method", "POST"), attribute.Int("123code", 500)))
	ig.Record(ctx, 7, metric.WithAttributes(attribute.String("a.b", "x"), attribute.String("a_b", "y"), attribute.Bool("ok", true)))
	fu.Add(ctx, -3.25, metric.WithAttributes(attribute.String("room", `lab "1"\n`)))
	ih.Record(ctx, 5)
	ih.Record(ctx, 500, metric.WithAttributes(attribute.String("kind", "upload")))
	rate.Add(ctx, 0.5)
	scrapeBoth(t, "instruments used", m.handler, official)
}

// TestBridgeServesPlainScrapesAsText: a scrape that names no format gets
// text 0.0.4 with the parking families the dashboards read.
func TestBridgeServesPlainScrapesAsText(t *testing.T) {
	m, err := newMetrics(false)
	if err != nil {
		t.Fatal(err)
	}
	m.parked(1)
	rec := httptest.NewRecorder()
	m.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want text 0.0.4", ct)
	}
	body := rec.Body.String()
	for _, want := range []string{
		"# TYPE " + MetricActive + " gauge\n",
		MetricActive + `{otel_scope_name="atenet-router",otel_scope_schema_url="",otel_scope_version=""} 1` + "\n",
		`target_info{service_name="atenet-router"} 1` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, body)
		}
	}
}
