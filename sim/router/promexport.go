package router

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// promExporter serves the SDK's metrics on /metrics exactly as the real
// router's exporter does: go.opentelemetry.io/otel/exporters/prometheus
// v0.69.0 with its default options, registered in its own client_golang
// registry and served by promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).
//
// Why not link that exporter: it pulls in prometheus/client_golang, and
// with it procfs, expvar and runtime/metrics, whose package initialisation
// every shakectl command pays at start-up, `shakectl version` included
// (issue 15). The simulator is the only user. This bridge keeps the OTel
// SDK and the naming library the exporter uses (prometheus/otlptranslator)
// and encodes with prometheus/common/expfmt, both of which the probe's
// scraper links anyway; what it copies is the exporter's Collect (names,
// unit and _total suffixes, otel_scope_* labels, target_info, attribute
// sanitising, first-seen HELP and type per name) and what the registry and
// promhttp do around it (families sorted by name and their series by label
// values, Accept and Accept-Encoding negotiation, HTTP 500 on a failed
// gather, the name[] filter).
//
// TestBridgeMatchesOfficialExporter drives the same instruments through
// both and compares the bytes; bump the version above together with the
// test-only go.opentelemetry.io/otel/exporters/prometheus requirement.
//
// Not carried over, because the simulator never produces them: exponential
// (native) histograms are refused with an error, and exemplars are dropped
// (the simulator records with context.Background, so the SDK's default
// trace-based filter keeps none; text 0.0.4 could not show them anyway).
type promExporter struct {
	reader      *sdkmetric.ManualReader
	metricNamer otlptranslator.MetricNamer
	labelNamer  otlptranslator.LabelNamer

	mu                sync.Mutex
	targetInfo        *dto.Metric
	disableTargetInfo bool
	// First type and HELP seen per name, for the whole life of the
	// exporter (its validateMetrics).
	seen map[string]*dto.MetricFamily
}

const (
	targetInfoDescription = "Target metadata"
	scopeLabelPrefix      = "otel_scope_"
	// The exporter skips metrics the OTel Prometheus bridge re-exports.
	bridgeScopeName = "go.opentelemetry.io/contrib/bridges/prometheus"
)

func newPromExporter() *promExporter {
	// The exporter's default strategy.
	strategy := otlptranslator.UnderscoreEscapingWithSuffixes
	return &promExporter{
		reader:      sdkmetric.NewManualReader(),
		metricNamer: otlptranslator.NewMetricNamer("", strategy),
		labelNamer:  otlptranslator.LabelNamer{UTF8Allowed: !strategy.ShouldEscape()},
		seen:        make(map[string]*dto.MetricFamily),
	}
}

// gatherErrors prints as client_golang's prometheus.MultiError does.
type gatherErrors []error

func (errs gatherErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d error(s) occurred:", len(errs))
	for _, err := range errs {
		fmt.Fprintf(&b, "\n* %s", err)
	}
	return b.String()
}

// gather collects the SDK's current values as the registry's Gather would
// return them: families sorted by name, each family's series sorted by
// label values. The error lists the series that could not be converted;
// the families are still the ones that could.
func (e *promExporter) gather(ctx context.Context) ([]*dto.MetricFamily, error) {
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(ctx, &rm); err != nil {
		if errors.Is(err, sdkmetric.ErrReaderShutdown) {
			return nil, nil
		}
		otel.Handle(err)
		if errors.Is(err, sdkmetric.ErrReaderNotRegistered) {
			return nil, nil
		}
	}
	g := gathering{families: make(map[string]*dto.MetricFamily)}

	e.mu.Lock()
	if e.targetInfo == nil && !e.disableTargetInfo {
		keys, values, err := e.attrs(*rm.Resource.Set())
		if err != nil {
			// The exporter stops sending target_info, silently but for
			// the global error handler.
			e.disableTargetInfo = true
			otel.Handle(err)
		} else {
			e.targetInfo = &dto.Metric{Label: labelPairs(keys, values), Gauge: &dto.Gauge{Value: new(1.0)}}
		}
	}
	targetInfo := e.targetInfo
	e.mu.Unlock()
	if targetInfo != nil {
		g.add(otlptranslator.TargetInfoMetricName, targetInfoDescription, dto.MetricType_GAUGE, targetInfo)
	}

	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name == bridgeScopeName {
			continue
		}
		scopeKeys := []string{scopeLabelPrefix + "name", scopeLabelPrefix + "version", scopeLabelPrefix + "schema_url"}
		scopeValues := []string{sm.Scope.Name, sm.Scope.Version, sm.Scope.SchemaURL}
		keys, values, err := e.scopeAttrs(sm.Scope.Attributes)
		if err != nil {
			g.fail(err)
			continue
		}
		scopeKeys = append(scopeKeys, keys...)
		scopeValues = append(scopeValues, values...)

		for _, m := range sm.Metrics {
			typ, naming, ok := metricTypes(m.Data)
			if !ok {
				g.fail(errors.New("invalid metric type"))
				continue
			}
			name, err := e.metricNamer.Build(otlptranslator.Metric{Name: m.Name, Unit: m.Unit, Type: naming})
			if err != nil {
				g.fail(err)
				continue
			}
			help, drop := e.validate(name, m.Description, typ)
			if drop {
				g.fail(errors.New("invalid metric"))
				continue
			}
			switch data := m.Data.(type) {
			case metricdata.Histogram[int64]:
				addHistogram(e, &g, name, help, data, scopeKeys, scopeValues)
			case metricdata.Histogram[float64]:
				addHistogram(e, &g, name, help, data, scopeKeys, scopeValues)
			case metricdata.Sum[int64]:
				addSum(e, &g, name, help, data, scopeKeys, scopeValues)
			case metricdata.Sum[float64]:
				addSum(e, &g, name, help, data, scopeKeys, scopeValues)
			case metricdata.Gauge[int64]:
				addGauge(e, &g, name, help, data, scopeKeys, scopeValues)
			case metricdata.Gauge[float64]:
				addGauge(e, &g, name, help, data, scopeKeys, scopeValues)
			default:
				g.fail(fmt.Errorf("%s: exponential histograms are not supported by the simulator's exporter", name))
			}
		}
	}
	return g.normalize(), g.err()
}

// metricTypes are the Prometheus type and the naming type of the data (the
// exporter's metricType and namingMetricType).
func metricTypes(data metricdata.Aggregation) (dto.MetricType, otlptranslator.MetricType, bool) {
	switch v := data.(type) {
	case metricdata.Histogram[int64], metricdata.Histogram[float64],
		metricdata.ExponentialHistogram[int64], metricdata.ExponentialHistogram[float64]:
		return dto.MetricType_HISTOGRAM, otlptranslator.MetricTypeHistogram, true
	case metricdata.Sum[int64]:
		return sumTypes(v.IsMonotonic)
	case metricdata.Sum[float64]:
		return sumTypes(v.IsMonotonic)
	case metricdata.Gauge[int64], metricdata.Gauge[float64]:
		return dto.MetricType_GAUGE, otlptranslator.MetricTypeGauge, true
	}
	return 0, otlptranslator.MetricTypeUnknown, false
}

func sumTypes(monotonic bool) (dto.MetricType, otlptranslator.MetricType, bool) {
	if monotonic {
		return dto.MetricType_COUNTER, otlptranslator.MetricTypeMonotonicCounter, true
	}
	return dto.MetricType_GAUGE, otlptranslator.MetricTypeNonMonotonicCounter, true
}

// validate keeps the first type and HELP seen for a name: a later metric of
// another type is dropped, one with another description gets the first.
func (e *promExporter) validate(name, help string, typ dto.MetricType) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	first, ok := e.seen[name]
	if !ok {
		e.seen[name] = &dto.MetricFamily{Name: new(name), Help: new(help), Type: typ.Enum()}
		return help, false
	}
	if first.GetType() != typ {
		return "", true
	}
	return first.GetHelp(), false
}

// attrs turns attributes into label names and values: names sanitised by
// otlptranslator, the values of names that collide joined with ";" in
// sorted order (the exporter's getAttrs).
func (e *promExporter) attrs(set attribute.Set) ([]string, []string, error) {
	return e.labels(set, "", false)
}

// scopeAttrs are the scope's attributes as otel_scope_ labels, without the
// three the scope's own fields fill (getScopeAttrs).
func (e *promExporter) scopeAttrs(set attribute.Set) ([]string, []string, error) {
	return e.labels(set, scopeLabelPrefix, true)
}

func (e *promExporter) labels(set attribute.Set, prefix string, skipReserved bool) ([]string, []string, error) {
	keys := make([]string, 0, set.Len())
	values := make([]string, 0, set.Len())
	reserved := func(k string) bool {
		return skipReserved && (k == "name" || k == "version" || k == "schema_url")
	}
	it := set.Iter()
	if e.labelNamer.UTF8Allowed {
		for it.Next() {
			kv := it.Attribute()
			if reserved(string(kv.Key)) {
				continue
			}
			keys = append(keys, prefix+string(kv.Key))
			values = append(values, kv.Value.String())
		}
		return keys, values, nil
	}
	byKey := make(map[string][]string)
	var order []string
	for it.Next() {
		kv := it.Attribute()
		key, err := e.labelNamer.Build(string(kv.Key))
		if err != nil {
			return nil, nil, err
		}
		if reserved(key) {
			continue
		}
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], kv.Value.String())
	}
	// The exporter walks its map in random order; the label pairs are
	// sorted by name afterwards, so any order gives the same output.
	for _, key := range order {
		vals := byKey[key]
		slices.Sort(vals)
		keys = append(keys, prefix+key)
		values = append(values, strings.Join(vals, ";"))
	}
	return keys, values, nil
}

// gathering is one scrape's families by name, as the registry builds them.
type gathering struct {
	families map[string]*dto.MetricFamily
	errs     gatherErrors
}

func (g *gathering) fail(err error) { g.errs = append(g.errs, err) }

func (g *gathering) err() error {
	if len(g.errs) == 0 {
		return nil
	}
	return g.errs
}

// add files a series under its family, checking the family's HELP as the
// registry does.
func (g *gathering) add(name, help string, typ dto.MetricType, m *dto.Metric) {
	mf, ok := g.families[name]
	if !ok {
		mf = &dto.MetricFamily{Name: new(name), Help: new(help), Type: typ.Enum()}
		g.families[name] = mf
	} else if mf.GetHelp() != help {
		g.fail(fmt.Errorf("collected metric %s has help %q but should have %q", name, help, mf.GetHelp()))
		return
	}
	mf.Metric = append(mf.Metric, m)
}

// addSeries labels m with the data point's attributes and the scope's
// labels, checked as client_golang's NewDesc and NewConstMetric check them,
// and files it.
func (g *gathering) addSeries(name, help string, typ dto.MetricType, keys, values []string, m *dto.Metric) {
	if err := checkLabels(name, keys, values); err != nil {
		g.fail(err)
		return
	}
	m.Label = labelPairs(keys, values)
	g.add(name, help, typ, m)
}

func checkLabels(name string, keys, values []string) error {
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if !model.UTF8Validation.IsValidLabelName(k) || strings.HasPrefix(k, model.ReservedLabelPrefix) {
			return fmt.Errorf("%q is not a valid label name for metric %q", k, name)
		}
		if seen[k] {
			return fmt.Errorf("duplicate label names in metric %q", name)
		}
		seen[k] = true
	}
	for _, v := range values {
		if !utf8.ValidString(v) {
			return fmt.Errorf("label value %q is not valid UTF-8", v)
		}
	}
	return nil
}

// labelPairs pairs names with values, sorted by name (MakeLabelPairs).
func labelPairs(keys, values []string) []*dto.LabelPair {
	if len(keys) == 0 {
		return nil
	}
	pairs := make([]*dto.LabelPair, len(keys))
	for i := range keys {
		pairs[i] = &dto.LabelPair{Name: new(keys[i]), Value: new(values[i])}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].GetName() < pairs[j].GetName() })
	return pairs
}

func addSum[N int64 | float64](e *promExporter, g *gathering, name, help string, sum metricdata.Sum[N], scopeKeys, scopeValues []string) {
	typ := dto.MetricType_GAUGE
	if sum.IsMonotonic {
		typ = dto.MetricType_COUNTER
	}
	for _, dp := range sum.DataPoints {
		keys, values, err := e.attrs(dp.Attributes)
		if err != nil {
			g.fail(err)
			continue
		}
		m := &dto.Metric{}
		if typ == dto.MetricType_COUNTER {
			m.Counter = &dto.Counter{Value: new(float64(dp.Value))}
		} else {
			m.Gauge = &dto.Gauge{Value: new(float64(dp.Value))}
		}
		g.addSeries(name, help, typ, append(keys, scopeKeys...), append(values, scopeValues...), m)
	}
}

func addGauge[N int64 | float64](e *promExporter, g *gathering, name, help string, gauge metricdata.Gauge[N], scopeKeys, scopeValues []string) {
	for _, dp := range gauge.DataPoints {
		keys, values, err := e.attrs(dp.Attributes)
		if err != nil {
			g.fail(err)
			continue
		}
		m := &dto.Metric{Gauge: &dto.Gauge{Value: new(float64(dp.Value))}}
		g.addSeries(name, help, dto.MetricType_GAUGE, append(keys, scopeKeys...), append(values, scopeValues...), m)
	}
}

// addHistogram writes cumulative bucket counts, one bucket per bound and no
// +Inf bucket (the count stands for it), as NewConstHistogram does.
func addHistogram[N int64 | float64](e *promExporter, g *gathering, name, help string, h metricdata.Histogram[N], scopeKeys, scopeValues []string) {
	for _, dp := range h.DataPoints {
		keys, values, err := e.attrs(dp.Attributes)
		if err != nil {
			g.fail(err)
			continue
		}
		// The exporter keys buckets by bound and the registry sorts them by
		// bound; the SDK's bounds are strictly increasing already.
		buckets := make([]*dto.Bucket, 0, len(dp.Bounds))
		var cumulative uint64
		for i, bound := range dp.Bounds {
			cumulative += dp.BucketCounts[i]
			buckets = append(buckets, &dto.Bucket{CumulativeCount: new(cumulative), UpperBound: new(bound)})
		}
		m := &dto.Metric{Histogram: &dto.Histogram{
			SampleCount: new(dp.Count),
			SampleSum:   new(float64(dp.Sum)),
			Bucket:      buckets,
		}}
		g.addSeries(name, help, dto.MetricType_HISTOGRAM, append(keys, scopeKeys...), append(values, scopeValues...), m)
	}
}

// normalize drops empty families, sorts the rest by name and each family's
// series by label values (client_golang's NormalizeMetricFamilies).
func (g *gathering) normalize() []*dto.MetricFamily {
	names := make([]string, 0, len(g.families))
	for name, mf := range g.families {
		if len(mf.Metric) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*dto.MetricFamily, 0, len(names))
	for _, name := range names {
		mf := g.families[name]
		sort.Sort(seriesOrder(mf.Metric))
		out = append(out, mf)
	}
	return out
}

type seriesOrder []*dto.Metric

func (s seriesOrder) Len() int      { return len(s) }
func (s seriesOrder) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s seriesOrder) Less(i, j int) bool {
	if len(s[i].Label) != len(s[j].Label) {
		return len(s[i].Label) < len(s[j].Label)
	}
	for n, lp := range s[i].Label {
		if vi, vj := lp.GetValue(), s[j].Label[n].GetValue(); vi != vj {
			return vi < vj
		}
	}
	if s[i].TimestampMs == nil {
		return false
	}
	if s[j].TimestampMs == nil {
		return true
	}
	return s[i].GetTimestampMs() < s[j].GetTimestampMs()
}

// ServeHTTP answers a scrape as promhttp.HandlerFor(reg,
// promhttp.HandlerOpts{}) does: the format from the Accept header (text
// 0.0.4 when none is named; protobuf on request; no OpenMetrics), gzip when
// Accept-Encoding prefers it, and a 500 naming the errors when some series
// could not be gathered.
func (e *promExporter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mfs, err := e.gather(r.Context())
	if err != nil {
		w.Header().Del("Content-Encoding")
		http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
		return
	}
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	w.Header().Add("Vary", "Accept")
	w.Header().Add("Vary", "Accept-Encoding")
	w.Header().Set("Content-Type", string(format))

	var out io.Writer = w
	if negotiateGzip(r.Header) {
		gz := gzip.NewWriter(w)
		defer gz.Close()
		w.Header().Set("Content-Encoding", "gzip")
		out = gz
	}
	enc := expfmt.NewEncoder(out, format)

	var only map[string]bool
	if r.URL != nil {
		if names := r.URL.Query()["name[]"]; len(names) > 0 {
			only = make(map[string]bool, len(names))
			for _, n := range names {
				only[n] = true
			}
		}
	}
	for _, mf := range mfs {
		if only != nil && !only[mf.GetName()] {
			continue
		}
		if enc.Encode(mf) != nil {
			return
		}
	}
	if closer, ok := enc.(expfmt.Closer); ok {
		_ = closer.Close()
	}
}

// negotiateGzip: promhttp offers identity then gzip and takes the offer
// with the highest q in Accept-Encoding, the first on a tie, identity when
// nothing matches; a winner at q=0 also falls back to identity.
func negotiateGzip(h http.Header) bool {
	best, bestQ := "identity", -1.0
	specs := parseAcceptEncoding(h)
	for _, offer := range []string{"identity", "gzip"} {
		for _, s := range specs {
			if s.q > bestQ && (s.value == "*" || s.value == offer) {
				best, bestQ = offer, s.q
			}
		}
	}
	return best == "gzip" && bestQ != 0
}

type encodingSpec struct {
	value string
	q     float64
}

// parseAcceptEncoding reads "gzip, deflate;q=0.5" lists; like the parser
// promhttp uses, it stops at the first element it cannot read.
func parseAcceptEncoding(h http.Header) []encodingSpec {
	var specs []encodingSpec
	for _, line := range h.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(line, ",") {
			value, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			value = strings.TrimSpace(value)
			if value == "" {
				break
			}
			q := 1.0
			if params = strings.TrimSpace(params); params != "" {
				v, ok := strings.CutPrefix(params, "q=")
				if !ok {
					break
				}
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					break
				}
				q = f
			}
			specs = append(specs, encodingSpec{value, q})
		}
	}
	return specs
}
