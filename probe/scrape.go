package probe

import (
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/probe/report"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/probe/transport"
)

// The router's metric names, as the Prometheus exporter spells the
// OpenTelemetry instruments atenet.router.parking.*.
const (
	metricActive   = "atenet_router_parking_active"
	metricWait     = "atenet_router_parking_wait_duration_seconds"
	metricRejected = "atenet_router_parking_rejected_total"
)

// agentgateway's own Substrate families (Prometheus, on the pod's
// :15020/metrics): its permit gauge, one per parking permit held (a
// cache-miss lookup of a running actor included), and its route duration.
// It has no wait histogram and no rejection counter (router-dataplanes.md
// §3.6; substrate internal/e2e/atenet_dataplane.go at 603c7c34 scrapes
// the gauge by this name).
const (
	metricAgentgatewayActive = "agentgateway_substrate_request_parking_active"
	// agentgatewaySubstrate and agentgatewayRoute are the prefixes of the
	// families only agentgateway's Substrate integration exports.
	agentgatewaySubstrate = "agentgateway_substrate_"
	agentgatewayRoute     = "agentgateway_atenet_router_"
)

// maxScrapeBytes bounds what a scrape reads, so a wrong URL serving a huge
// file cannot exhaust memory.
const maxScrapeBytes = 16 << 20

// ParseMetrics reads Prometheus text exposition and extracts the parking
// metrics. Text that is not Prometheus exposition is an error.
func ParseMetrics(r io.Reader) (*report.RouterMetrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("not Prometheus text: %s", firstLine(err.Error()))
	}
	m := &report.RouterMetrics{Dataplane: dataplaneOf(fams)}
	m.AtenetRouter = m.Dataplane == report.DataplaneAtenet
	if f := fams[metricActive]; f != nil {
		v := sumValues(f)
		m.ParkingActive = &v
	} else if f := fams[metricAgentgatewayActive]; f != nil {
		v := sumValues(f)
		m.ParkingActive = &v
	}
	for _, name := range []string{metricRejected, strings.TrimSuffix(metricRejected, "_total")} {
		if f := fams[name]; f != nil {
			v := sumValues(f)
			m.ParkingRejectedTotal = &v
			break
		}
	}
	if f := fams[metricWait]; f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
		m.ParkingWait = map[string]report.WaitStats{}
		for _, mt := range f.GetMetric() {
			outcome := labelValue(mt, "outcome")
			h := mt.GetHistogram()
			ws := m.ParkingWait[outcome]
			ws.Count += float64(h.GetSampleCount())
			ws.SumSeconds += h.GetSampleSum()
			ws.Buckets = addBuckets(ws.Buckets, h.GetBucket())
			m.ParkingWait[outcome] = ws
		}
	}
	return m, nil
}

// dataplaneOf says whose exposition it is: the atenet router's (a family
// named atenet_router_*, or a series whose otel_scope_name or service_name
// (target_info) is "atenet-router": every real version's, sim router's
// too), agentgateway's Substrate integration's (agentgateway_substrate_*
// or agentgateway_atenet_router_*), or "" for neither.
func dataplaneOf(fams map[string]*dto.MetricFamily) string {
	agw := false
	for name, f := range fams {
		if strings.HasPrefix(name, "atenet_router_") {
			return report.DataplaneAtenet
		}
		agw = agw || strings.HasPrefix(name, agentgatewaySubstrate) || strings.HasPrefix(name, agentgatewayRoute)
		for _, m := range f.GetMetric() {
			if labelValue(m, "otel_scope_name") == routerName || labelValue(m, "service_name") == routerName {
				return report.DataplaneAtenet
			}
		}
	}
	if agw {
		return report.DataplaneAgentgateway
	}
	return ""
}

// routerName is the atenet router's OpenTelemetry scope and service name.
const routerName = "atenet-router"

func addBuckets(acc []report.Bucket, bs []*dto.Bucket) []report.Bucket {
	for _, b := range bs {
		le := b.GetUpperBound()
		n := float64(b.GetCumulativeCount())
		found := false
		for i := range acc {
			if acc[i].LE == le {
				acc[i].Count += n
				found = true
				break
			}
		}
		if !found {
			acc = append(acc, report.Bucket{LE: le, Count: n})
		}
	}
	sort.Slice(acc, func(i, j int) bool { return acc[i].LE < acc[j].LE })
	return acc
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sumValues adds a family's samples over all label sets (several scopes or
// instances may report the same instrument).
func sumValues(f *dto.MetricFamily) float64 {
	total := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ErrNoParkingCard says statusz answered but has no "parking" card: a router
// without request parking (agent-substrate/substrate main 86e138f6). It is
// a finding, not a failure.
var ErrNoParkingCard = errors.New(`no parking card (a router without request parking, such as atenet main)`)

// ParseStatusz reads /statusz?format=json and returns its parking card, or
// ErrNoParkingCard when it is the router's statusz without one (it has the
// router's own keys: router_cluster_ip, port_extproc). JSON that is
// neither is an error: checks built on it would be meaningless.
func ParseStatusz(r io.Reader) (*report.StatuszParking, error) {
	var doc struct {
		Parking         *report.StatuszParking `json:"parking"`
		RouterClusterIP *string                `json:"router_cluster_ip"`
		PortExtproc     *json.Number           `json:"port_extproc"`
		// Extproc is sim router's own card, which its main model writes.
		Extproc json.RawMessage `json:"extproc"`
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %s", firstLine(err.Error()))
	}
	if doc.Parking == nil {
		if doc.RouterClusterIP == nil && doc.PortExtproc == nil && doc.Extproc == nil {
			return nil, errors.New("not the atenet router's statusz: no parking card, no router_cluster_ip, no port_extproc")
		}
		return nil, ErrNoParkingCard
	}
	if bad := doc.Parking.Impossible(); bad != "" {
		return nil, fmt.Errorf("impossible parking card (%s): no router shows that", bad)
	}
	return doc.Parking, nil
}

// scraper fetches the router's own view on its own HTTP client, so scrapes
// never queue behind parked load connections.
type scraper struct {
	client     *http.Client
	metricsURL string
	statuszURL string
}

func newScraper(metricsURL, statuszURL string, rt http.RoundTripper, dial transport.DialFunc) *scraper {
	if rt == nil {
		// Options.Dial opens the scrapes' connections too; nil is
		// net/http's own dialer.
		rt = &http.Transport{MaxIdleConnsPerHost: 2, DialContext: dial}
	}
	return &scraper{
		client: &http.Client{
			Timeout:   5 * time.Second,
			Transport: rt,
		},
		metricsURL: metricsURL,
		statuszURL: statuszURLWithFormat(statuszURL),
	}
}

// statuszURLWithFormat asks for the JSON card (?format=json) unless the URL
// already names a format.
func statuszURLWithFormat(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	if q.Get("format") == "" {
		q.Set("format", "json")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func (s *scraper) get(ctx context.Context, rawURL, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s", describeFetchError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxScrapeBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %s", transport.Detail(err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d %s", resp.StatusCode, strings.TrimSpace(string(truncate(body, 80))))
	}
	return body, nil
}

func describeFetchError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return transport.Detail(err)
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func (s *scraper) metrics(ctx context.Context) (*report.RouterMetrics, error) {
	body, err := s.get(ctx, s.metricsURL, "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	if err != nil {
		return nil, fmt.Errorf("metrics %s: %w", redact.URL(s.metricsURL), err)
	}
	m, err := ParseMetrics(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("metrics %s: %w", redact.URL(s.metricsURL), err)
	}
	return m, nil
}

func (s *scraper) statusz(ctx context.Context) (*report.StatuszParking, error) {
	body, err := s.get(ctx, s.statuszURL, "application/json")
	if err != nil {
		hint := ""
		if strings.HasPrefix(err.Error(), "HTTP 404") {
			// agentgateway's own parking has no statusz at all
			// (router-dataplanes.md §3.3, §4).
			hint = " (agentgateway has no statusz: probe it without {StatuszURL}, with {Checks.Budget})"
		}
		return nil, fielderr.Errorf("statusz %s: %w"+hint, redact.URL(s.statuszURL), err)
	}
	p, err := ParseStatusz(bytes.NewReader(body))
	if errors.Is(err, ErrNoParkingCard) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("statusz %s: %w", redact.URL(s.statuszURL), err)
	}
	return p, nil
}

// active reads parking_active from the metrics, else from statusz.
func (s *scraper) active(ctx context.Context) (float64, bool) {
	if s.metricsURL != "" {
		if m, err := s.metrics(ctx); err == nil {
			if m.ParkingActive != nil {
				return *m.ParkingActive, true
			}
			return 0, true
		}
	}
	if s.statuszURL != "" {
		if p, err := s.statusz(ctx); err == nil && p.Active != nil {
			return *p.Active, true
		}
	}
	return 0, false
}
