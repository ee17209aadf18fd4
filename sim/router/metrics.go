package router

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
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
	InstrumentRoute    = "atenet.router.route.duration"
	InstrumentActive   = "atenet.router.parking.active"
	InstrumentWait     = "atenet.router.parking.wait.duration"
	InstrumentRejected = "atenet.router.parking.rejected"

	MetricRoute    = "atenet_router_route_duration_seconds"
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

// RouteOutcome is the route-duration histogram's outcome label: how the
// ext_proc exchange ended (PR #221 and main, extproc.go classifyOutcome).
type RouteOutcome string

const (
	RouteOK        RouteOutcome = "ok"
	RouteError     RouteOutcome = "error"
	RouteNotFound  RouteOutcome = "not_found"
	RouteCancelled RouteOutcome = "cancelled"
)

// RouteOutcomes lists every route outcome label value.
var RouteOutcomes = []RouteOutcome{RouteOK, RouteError, RouteNotFound, RouteCancelled}

// SimActorTemplate is the actor_template_name of every simulated actor;
// its actor_template_namespace is the atespace. (Real actors come from an
// ActorTemplate in a Kubernetes namespace; the simulator has none.) A
// request that never resolved an actor has both labels empty, as on the
// real router.
const SimActorTemplate = "sim-actor"

// RouteBuckets are the route-duration histogram's bounds in seconds
// (PR #221 4a8f978b and main 86e138f6, metrics.go
// newRouteDurationHistogram).
var RouteBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30}

// WaitBuckets are the wait histogram's bucket bounds in seconds; OTel's
// defaults are sized for milliseconds and would put every park in one bucket.
var WaitBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 45, 60}

type metrics struct {
	provider *sdkmetric.MeterProvider
	handler  http.Handler

	route    metric.Float64Histogram
	active   metric.Int64UpDownCounter
	wait     metric.Float64Histogram
	rejected metric.Int64Counter

	outcomeOpts map[Outcome]metric.RecordOption
	// routeOpts and resolvedOpts are the route label sets, built once:
	// for a request that resolved no actor, and for one that did (every
	// actor lives in the one atespace).
	routeOpts, resolvedOpts map[RouteOutcome]metric.RecordOption
}

// newMetrics builds the instruments and the exporter that serves them, set
// up as the real router's serverboot.InitMetrics and StartMetricsServer do
// (agent-substrate/substrate PR #221 head 4a8f978b, also main 86e138f6,
// internal/serverboot/serverboot.go): the OTel Prometheus exporter with
// its default options (scope labels and target_info on, translation
// strategy UnderscoreEscapingWithSuffixes, so "s" becomes _seconds and a
// counter gets _total), a resource with the telemetry SDK, service.name
// and service.instance.id, and promhttp.Handler() on /metrics.
//
// Where the real router uses the process-wide prometheus.DefaultRegisterer
// and otel's global MeterProvider, each simulator has its own registry
// holding what the default one holds (the Go and process collectors, and
// promhttp's own promhttp_* counters through InstrumentMetricHandler): two
// simulators in one process (tests, demo) must neither share series nor
// fail to register, and a library sets no process-wide state.
//
// zeroAtStart reports the gauge and the counter at zero from the start
// (the seed's simulator always did); the real routers (main, PR #221)
// export a parking series only once used.
func newMetrics(zeroAtStart bool, atespace string) (*metrics, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, fmt.Errorf("metrics: process collector: %w", err)
	}
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, fmt.Errorf("metrics: Go collector: %w", err)
	}
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("metrics: Prometheus exporter: %w", err)
	}
	// serverboot.newResource, less resource.WithFromEnv: the SDK's
	// WithResource merges OTEL_RESOURCE_ATTRIBUTES itself.
	res, err := resource.New(context.Background(),
		resource.WithTelemetrySDK(),
		resource.WithAttributes(
			attribute.String("service.name", MeterName),
			attribute.String("service.instance.id", uuid.NewString()),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("metrics: resource: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithResource(res))
	meter := provider.Meter(MeterName)
	m := &metrics{
		provider:    provider,
		handler:     promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})),
		outcomeOpts: make(map[Outcome]metric.RecordOption),
	}
	// The instruments as PR #221's cmd/atenet/internal/router/metrics.go
	// creates them: names, units, descriptions and bucket bounds.
	if m.route, err = meter.Float64Histogram(InstrumentRoute,
		metric.WithUnit("s"),
		metric.WithDescription("latency between Substrate router receiving a request and resolving "+
			"the target worker endpoint, excluding actor execution and response"),
		metric.WithExplicitBucketBoundaries(RouteBuckets...)); err != nil {
		return nil, err
	}
	m.routeOpts = make(map[RouteOutcome]metric.RecordOption)
	m.resolvedOpts = make(map[RouteOutcome]metric.RecordOption)
	for _, o := range RouteOutcomes {
		m.routeOpts[o] = routeAttrs("", "", o)
		m.resolvedOpts[o] = routeAttrs(atespace, SimActorTemplate, o)
	}
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

func routeAttrs(ns, name string, o RouteOutcome) metric.RecordOption {
	return metric.WithAttributeSet(attribute.NewSet(
		attribute.String("actor_template_namespace", ns),
		attribute.String("actor_template_name", name),
		attribute.String("outcome", string(o))))
}

// routed records one ext_proc exchange; resolved says whether the actor
// was resolved (its template labels are set).
func (m *metrics) routed(d time.Duration, resolved bool, o RouteOutcome) {
	opt := m.routeOpts[o]
	if resolved {
		opt = m.resolvedOpts[o]
	}
	m.route.Record(context.Background(), d.Seconds(), opt)
}

func (m *metrics) parked(delta int64) { m.active.Add(context.Background(), delta) }

func (m *metrics) shed() { m.rejected.Add(context.Background(), 1) }

func (m *metrics) waited(d time.Duration, o Outcome) {
	m.wait.Record(context.Background(), d.Seconds(), m.outcomeOpts[o])
}

func (m *metrics) shutdown(ctx context.Context) error { return m.provider.Shutdown(ctx) }
