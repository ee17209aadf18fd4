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
// ext_proc exchange ended (PR #221 and main, extproc.go classifyOutcome:
// "outcome"; upstream main 2026-08: "ate_router_outcome").
type RouteOutcome string

const (
	RouteOK        RouteOutcome = "ok"
	RouteError     RouteOutcome = "error"
	RouteNotFound  RouteOutcome = "not_found"
	RouteCancelled RouteOutcome = "cancelled"

	// main-2026-08's further values (captures atenet-router-6210ad86;
	// rate_limited exists but is never produced on the resume path).
	RouteTimeout            RouteOutcome = "timeout"
	RouteNoCapacity         RouteOutcome = "no_capacity"
	RouteFailedPrecondition RouteOutcome = "failed_precondition"
	RouteLockConflict       RouteOutcome = "lock_conflict"
	RouteUnavailable        RouteOutcome = "unavailable"
	RouteRateLimited        RouteOutcome = "rate_limited"
	RouteResumeError        RouteOutcome = "resume_error"
)

// RouteOutcomes lists the route outcome values of main 86e138f6 and PR #221.
var RouteOutcomes = []RouteOutcome{RouteOK, RouteError, RouteNotFound, RouteCancelled}

// RouteOutcomes202608 lists main-2026-08's ate_router_outcome values.
var RouteOutcomes202608 = []RouteOutcome{RouteOK, RouteCancelled, RouteTimeout, RouteNoCapacity, RouteFailedPrecondition,
	RouteLockConflict, RouteNotFound, RouteUnavailable, RouteRateLimited, RouteResumeError}

// Resume is main-2026-08's ate_router_resume label: how a routed request's
// actor came to run.
type Resume string

const (
	ResumeNone      Resume = "none"      // already running, or the resume failed
	ResumeTriggered Resume = "triggered" // by the flight this request started
	ResumeJoined    Resume = "joined"    // by a flight this request joined
)

// Resumes lists every ate_router_resume value.
var Resumes = []Resume{ResumeNone, ResumeTriggered, ResumeJoined}

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

// dataplaneMetrics is what the resume path records, whichever exposition
// the model's dataplane serves.
type dataplaneMetrics interface {
	// routed records one exchange's route duration and ending.
	routed(d time.Duration, e routeEnd)
	// parked moves the parked gauge by delta.
	parked(delta int64)
	// shed counts a request the full lot refused.
	shed()
	// waited records one park's wait and outcome.
	waited(d time.Duration, o Outcome)
	// handler serves /metrics.
	handler() http.Handler
	shutdown(ctx context.Context) error
}

// newDataplaneMetrics builds the exposition of the model's dataplane.
func newDataplaneMetrics(tr modelTraits, atespace string) (dataplaneMetrics, error) {
	if tr.metrics == metricsAgentgateway {
		return newAgentgatewayMetrics()
	}
	return newMetrics(tr.zeroAtStart, tr.metrics == metricsAtenet202608, atespace)
}

// metrics is the atenet router's OpenTelemetry exposition.
type metrics struct {
	provider *sdkmetric.MeterProvider
	h        http.Handler

	route    metric.Float64Histogram
	active   metric.Int64UpDownCounter
	wait     metric.Float64Histogram
	rejected metric.Int64Counter

	outcomeOpts map[Outcome]metric.RecordOption
	// routeOpts are the route label sets, built once (every actor lives in
	// the one atespace, so the template labels take two values).
	routeOpts map[routeEnd]metric.RecordOption
	m2608     bool
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
// (the seed's simulator always did); the real routers (main, PR #221,
// main-2026-08) export a parking series only once used. m2608 names the
// route labels as upstream main 2026-08 does.
func newMetrics(zeroAtStart, m2608 bool, atespace string) (*metrics, error) {
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
		h:           promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})),
		outcomeOpts: make(map[Outcome]metric.RecordOption),
		m2608:       m2608,
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
	m.routeOpts = make(map[routeEnd]metric.RecordOption)
	outcomes, resumes := RouteOutcomes, []Resume{""}
	if m2608 {
		outcomes, resumes = RouteOutcomes202608, Resumes
	}
	for _, o := range outcomes {
		for _, r := range resumes {
			for _, resolved := range []bool{false, true} {
				ns, name := "", ""
				if resolved {
					ns, name = atespace, SimActorTemplate
				}
				m.routeOpts[routeEnd{outcome: o, resolved: resolved, resume: r}] = routeAttrs(m2608, ns, name, o, r)
			}
		}
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

// routeAttrs is one route label set: PR #221's actor_template_* and
// outcome, or main-2026-08's ate.template.* (written ate_template_* by the
// exporter), ate.router.outcome and ate.router.resume.
func routeAttrs(m2608 bool, ns, name string, o RouteOutcome, r Resume) metric.RecordOption {
	if m2608 {
		return metric.WithAttributeSet(attribute.NewSet(
			attribute.String("ate.template.namespace", ns),
			attribute.String("ate.template.name", name),
			attribute.String("ate.router.outcome", string(o)),
			attribute.String("ate.router.resume", string(r))))
	}
	return metric.WithAttributeSet(attribute.NewSet(
		attribute.String("actor_template_namespace", ns),
		attribute.String("actor_template_name", name),
		attribute.String("outcome", string(o))))
}

// routed records one ext_proc exchange.
func (m *metrics) routed(d time.Duration, e routeEnd) {
	e.unaddressed = false // not a label
	switch {
	case !m.m2608:
		e.resume = ""
	case e.resume == "":
		e.resume = ResumeNone
	}
	m.route.Record(context.Background(), d.Seconds(), m.routeOpts[e])
}

func (m *metrics) parked(delta int64) { m.active.Add(context.Background(), delta) }

func (m *metrics) shed() { m.rejected.Add(context.Background(), 1) }

func (m *metrics) waited(d time.Duration, o Outcome) {
	m.wait.Record(context.Background(), d.Seconds(), m.outcomeOpts[o])
}

func (m *metrics) handler() http.Handler { return m.h }

func (m *metrics) shutdown(ctx context.Context) error { return m.provider.Shutdown(ctx) }
