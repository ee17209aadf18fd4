package router

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// What the newest dataplanes do differently: the actor in a header, and
// agentgateway's own answers to gRPC clients and its own metrics. Read in
// the public sources (agentgateway/agentgateway PR #3051 and later main;
// substrate #1333), not run: router-dataplanes.md in the reference notes
// says where.

// parseTargetActor reads `ate-target-actor: <atespace>/<actor>`: both
// parts DNS labels, nothing else.
func parseTargetActor(v string) (atespace, actor string, err error) {
	atespace, actor, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return "", "", errors.New("want <atespace>/<actor>")
	}
	if err := checkLabel(atespace); err != nil {
		return "", "", fmt.Errorf("atespace %q: %v", atespace, err)
	}
	if err := checkLabel(actor); err != nil {
		return "", "", fmt.Errorf("actor %q: %v", actor, err)
	}
	return atespace, actor, nil
}

// isGRPC reports whether a request is a gRPC client's.
func isGRPC(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

// grpcRefusal answers a gRPC client as agentgateway does: a refusal is
// HTTP 200 with no body, its status and text in grpc-status and
// grpc-message (proxy/mod.rs 478-489, 518-544 at 5f96588b7); a routed
// request's answer passes through.
type grpcRefusal struct {
	http.ResponseWriter
	code    int
	through bool
}

func (g *grpcRefusal) WriteHeader(code int) {
	if code == http.StatusOK {
		g.through = true
		g.ResponseWriter.WriteHeader(code)
		return
	}
	g.code = code
}

func (g *grpcRefusal) Write(b []byte) (int, error) {
	if g.through || g.code == 0 {
		return g.ResponseWriter.Write(b)
	}
	h := g.ResponseWriter.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", strconv.Itoa(int(grpcCodeOf(g.code))))
	h.Set("Grpc-Message", grpcPercentEncode(string(b)))
	g.ResponseWriter.WriteHeader(http.StatusOK)
	g.through = true
	return len(b), nil
}

// grpcCodeOf is agentgateway's gRPC status for an HTTP refusal: 503, 504
// and 429 are UNAVAILABLE, 404 UNIMPLEMENTED, 403 PERMISSION_DENIED, 401
// UNAUTHENTICATED, anything else UNKNOWN.
func grpcCodeOf(status int) Code {
	switch status {
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return Unavailable
	case http.StatusNotFound:
		return grpcUnimplemented
	case http.StatusForbidden:
		return PermissionDenied
	case http.StatusUnauthorized:
		return Unauthenticated
	}
	return grpcUnknown
}

// The gRPC codes only the answers to gRPC clients use.
const (
	grpcUnknown       Code = 2
	grpcUnimplemented Code = 12
)

// grpcPercentEncode writes grpc-message as the gRPC HTTP/2 protocol says:
// bytes outside printable ASCII, and '%', as %XX.
func grpcPercentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Agentgateway's metric families (Prometheus, served natively on the
// pod's :15020/metrics; names from its later main's metrics.rs and
// substrate's e2e collector_metrics.go, as the reference reads them).
const (
	MetricAgentgatewayActive = "agentgateway_substrate_request_parking_active"
	MetricAgentgatewayRoute  = "agentgateway_atenet_router_route_duration_seconds"
)

// agentgatewayMetrics is agentgateway's own exposition: the permit gauge
// (no labels; +1 when a permit is acquired, -1 when it drops) and the
// route-duration histogram by ate_router_outcome and ate_router_resume.
// It has no wait histogram and no rejection counter.
type agentgatewayMetrics struct {
	reg    *prometheus.Registry
	active prometheus.Gauge
	route  *prometheus.HistogramVec
	h      http.Handler
}

func newAgentgatewayMetrics() (*agentgatewayMetrics, error) {
	reg := prometheus.NewRegistry()
	m := &agentgatewayMetrics{
		reg: reg,
		active: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: MetricAgentgatewayActive,
			Help: "Number of substrate ingress requests holding a request-parking permit.",
		}),
		route: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricAgentgatewayRoute,
			Help:    "Time to resolve a substrate actor's worker endpoint.",
			Buckets: RouteBuckets,
		}, []string{"ate_router_outcome", "ate_router_resume"}),
	}
	for _, c := range []prometheus.Collector{m.active, m.route, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector()} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	m.h = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return m, nil
}

func (m *agentgatewayMetrics) routed(d time.Duration, e routeEnd) {
	if e.resume == "" {
		e.resume = ResumeNone
	}
	m.route.WithLabelValues(string(e.outcome), string(e.resume)).Observe(d.Seconds())
}

func (m *agentgatewayMetrics) parked(delta int64)            { m.active.Add(float64(delta)) }
func (m *agentgatewayMetrics) shed()                         {}
func (m *agentgatewayMetrics) waited(time.Duration, Outcome) {}
func (m *agentgatewayMetrics) handler() http.Handler         { return m.h }
func (m *agentgatewayMetrics) shutdown(context.Context) error {
	return nil
}
