package router

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The OpenTelemetry names the real router uses, and the Prometheus names the
// exporter turns them into (dots to underscores, the histogram's unit "s"
// as _seconds, a monotonic counter's _total; an up/down counter is a gauge
// and gets no suffix).
const (
	MeterName          = "atenet-router"
	InstrumentActive   = "atenet.router.parking.active"
	InstrumentWait     = "atenet.router.parking.wait.duration"
	InstrumentRejected = "atenet.router.parking.rejected"

	MetricActive   = "atenet_router_parking_active"
	MetricWait     = "atenet_router_parking_wait_duration_seconds"
	MetricRejected = "atenet_router_parking_rejected_total"
)

// Outcome says how a park ended: the wait histogram's outcome label.
type Outcome string

// The seed's outcome vocabulary. PR #221 uses served, canceled and error
// only (a spent budget is "error", a stream deadline "canceled").
const (
	OutcomeServed          Outcome = "served"
	OutcomeBudgetExhausted Outcome = "budget_exhausted"
	OutcomeCanceled        Outcome = "canceled"
	OutcomeTimeout         Outcome = "timeout"
	OutcomeError           Outcome = "error"
)

// Outcomes lists every outcome label value.
var Outcomes = []Outcome{OutcomeServed, OutcomeBudgetExhausted, OutcomeCanceled, OutcomeTimeout, OutcomeError}

// WaitBuckets are the wait histogram's bucket bounds in seconds; OTel's
// defaults are sized for milliseconds and would put every park in one bucket.
var WaitBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60}

type metrics struct {
	provider *sdkmetric.MeterProvider
	handler  http.Handler

	active   metric.Int64UpDownCounter
	wait     metric.Float64Histogram
	rejected metric.Int64Counter

	outcomeOpts map[Outcome]metric.RecordOption
}

// newMetrics builds the instruments and their exporter. zeroAtStart
// reports the gauge and the counter at zero from the start (the seed's
// simulator always did); the real routers (main, PR #221) export a parking
// series only once used. Extra readers see the same instruments (the test
// that compares promExporter with the official exporter adds one).
func newMetrics(zeroAtStart bool, extra ...sdkmetric.Reader) (*metrics, error) {
	// Each simulator has its own exporter, not a global one: two
	// simulators in one process (tests, demo) must not share or collide.
	// Scope labels (otel_scope_name="atenet-router", otel_scope_version="",
	// otel_scope_schema_url="") and target_info stay on, as the real
	// router's default-option exporter writes them.
	exporter := newPromExporter()
	opts := []sdkmetric.Option{
		sdkmetric.WithReader(exporter.reader),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", MeterName))),
	}
	for _, r := range extra {
		opts = append(opts, sdkmetric.WithReader(r))
	}
	provider := sdkmetric.NewMeterProvider(opts...)
	meter := provider.Meter(MeterName)
	m := &metrics{
		provider:    provider,
		handler:     exporter,
		outcomeOpts: make(map[Outcome]metric.RecordOption),
	}
	var err error
	if m.active, err = meter.Int64UpDownCounter(InstrumentActive,
		metric.WithDescription("number of requests currently parked in the router awaiting actor resume"),
		metric.WithUnit("{request}")); err != nil {
		return nil, err
	}
	if m.wait, err = meter.Float64Histogram(InstrumentWait,
		metric.WithDescription("time a request spent parked in the router before being served, timing out, or failing"),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(WaitBuckets...)); err != nil {
		return nil, err
	}
	if m.rejected, err = meter.Int64Counter(InstrumentRejected,
		metric.WithDescription("number of requests shed because the router parking lot was full"),
		metric.WithUnit("{request}")); err != nil {
		return nil, err
	}
	for _, o := range Outcomes {
		m.outcomeOpts[o] = metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", string(o))))
	}
	if zeroAtStart {
		// The seed model reports the gauge and the counter at zero, so a
		// scrape before any parking already shows them.
		ctx := context.Background()
		m.active.Add(ctx, 0)
		m.rejected.Add(ctx, 0)
	}
	return m, nil
}

func (m *metrics) parked(delta int64) { m.active.Add(context.Background(), delta) }

func (m *metrics) shed() { m.rejected.Add(context.Background(), 1) }

func (m *metrics) waited(d time.Duration, o Outcome) {
	m.wait.Record(context.Background(), d.Seconds(), m.outcomeOpts[o])
}

func (m *metrics) shutdown(ctx context.Context) error { return m.provider.Shutdown(ctx) }
