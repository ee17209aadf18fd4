package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Report is what a probe measured. Its JSON form (field names stable, times
// in seconds) is the -o json output and the --out file; it carries each
// outcome's HDR histogram so reports from several machines merge exactly.
type Report struct {
	RunInfo
	Target          string                   `json:"target"`
	Mode            string                   `json:"mode"`
	StartedAt       time.Time                `json:"started_at"`
	DurationSeconds float64                  `json:"duration_seconds"`
	Requests        int64                    `json:"requests"`
	Interrupted     bool                     `json:"interrupted"`
	Load            LoadInfo                 `json:"load"`
	Outcomes        map[string]*OutcomeStats `json:"outcomes"`
	InFlightPeak    int64                    `json:"in_flight_peak"`
	// AchievedRate and SendLateness are set in open mode: the rate the
	// probe really sent at, and how late sends were against the schedule.
	AchievedRate    *float64        `json:"achieved_rate,omitempty"`
	SendLateness    *LatencySummary `json:"send_lateness_seconds,omitempty"`
	SendLatenessHDR string          `json:"send_lateness_hdr,omitempty"`
	Metrics         *MetricsReport  `json:"metrics,omitempty"`
	Statusz         *StatuszReport  `json:"statusz,omitempty"`
	// Flights is the per-actor flight analysis of budget_exhausted answers.
	Flights *FlightStats  `json:"flights,omitempty"`
	Checks  []Check       `json:"checks"`
	Series  []SeriesPoint `json:"series"`
	// Sources lists the reports a merged report was made from.
	Sources        []string `json:"sources,omitempty"`
	OpenFilesLimit uint64   `json:"open_files_limit,omitempty"`

	samples  []Sample
	lateness *hdr.Histogram
}

// LoadInfo records how the load was shaped and checked.
type LoadInfo struct {
	Requests        int     `json:"requests,omitempty"`
	Concurrency     int     `json:"concurrency,omitempty"`
	Rate            float64 `json:"rate,omitempty"`
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	TimeoutSeconds  float64 `json:"timeout_seconds"`
	Actors          int     `json:"actors"`
	Distribution    string  `json:"distribution"`
	Seed            uint64  `json:"seed"`
	Method          string  `json:"method"`
	// Addressing is "host <template>" or "url <template>".
	Addressing    string  `json:"addressing"`
	BudgetSeconds float64 `json:"budget_seconds"`
	// BudgetSource says where the budget came from: given, statusz
	// max_wait or default.
	BudgetSource   string  `json:"budget_source,omitempty"`
	SlackSeconds   float64 `json:"slack_seconds"`
	ShedMaxSeconds float64 `json:"shed_max_seconds"`
}

// OutcomeStats is one outcome's share of the run.
type OutcomeStats struct {
	Count   int64           `json:"count"`
	Ratio   float64         `json:"ratio"`
	Latency *LatencySummary `json:"latency_seconds,omitempty"`
	// Details break the outcome down (transport error reasons, statuses
	// and bodies of proxy errors and others).
	Details map[string]int64 `json:"details,omitempty"`
	// HDR is the latency histogram (microseconds), HdrHistogram V2
	// compressed and base64-encoded, as its log format writes it.
	HDR string `json:"hdr,omitempty"`
	// ServiceHDR is, in burst and open modes, the histogram of time from
	// the request's write (not the release or the schedule) to the answer;
	// budget_bound uses it.
	ServiceHDR string `json:"service_hdr,omitempty"`

	lat, svc *hdr.Histogram
}

// LatencySummary holds the quantiles the report shows, in seconds.
type LatencySummary struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// MetricsReport is the router's Prometheus view around the run.
type MetricsReport struct {
	URL    string         `json:"url"`
	Before *RouterMetrics `json:"before"`
	After  *RouterMetrics `json:"after"`
	// RejectedDelta is parking_rejected_total after minus before.
	RejectedDelta *float64 `json:"parking_rejected_delta"`
	// WaitDelta is the wait histogram's growth during the run, per outcome.
	WaitDelta map[string]WaitStats `json:"parking_wait_delta,omitempty"`
	// WaitBudgetLabel is the outcome label under which the router records
	// a spent budget, as seen: "budget_exhausted" (seed 000_), "error"
	// (PR #221) or "" (none seen).
	WaitBudgetLabel string `json:"wait_budget_label,omitempty"`
	// ActivePeak is the highest parking_active seen before, during (every
	// second) and after the run.
	ActivePeak   *float64 `json:"parking_active_peak"`
	ScrapeErrors int      `json:"scrape_errors"`
	LastError    string   `json:"last_error,omitempty"`
}

// StatuszReport is the router's status card around the run.
type StatuszReport struct {
	URL    string          `json:"url"`
	Before *StatuszParking `json:"before"`
	After  *StatuszParking `json:"after"`
	// ActivePeak is set when statusz (not metrics) was polled during the
	// run.
	ActivePeak *float64 `json:"active_peak,omitempty"`
	// NoParkingCard says statusz answered without a parking card: the
	// router does not park (atenet main).
	NoParkingCard bool `json:"no_parking_card,omitempty"`
}

// Check is one pass/fail verdict. Status is "ok", "failed" or "skipped"
// (nothing to judge); OK is false only when it failed.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// Check statuses.
const (
	CheckOK      = "ok"
	CheckFailed  = "failed"
	CheckSkipped = "skipped"
)

// SeriesPoint is one second of the run.
type SeriesPoint struct {
	Second int   `json:"second"`
	Sent   int64 `json:"sent"`
	// InFlight is the count at the end of the second; InFlightPeak the
	// highest within it.
	InFlight      int64            `json:"in_flight"`
	InFlightPeak  int64            `json:"in_flight_peak"`
	ParkingActive *float64         `json:"parking_active,omitempty"`
	Outcomes      map[string]int64 `json:"outcomes"`
}

// Failed lists the names of failed checks.
func (r *Report) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == CheckFailed {
			out = append(out, c.Name)
		}
	}
	return out
}

// Samples are the per-request points kept for a plot (Options.KeepSamples).
func (r *Report) Samples() []Sample { return r.samples }

func (r *Report) count(o Outcome) int64 {
	if s := r.Outcomes[o.String()]; s != nil {
		return s.Count
	}
	return 0
}

func (r *Report) stats(o Outcome) *OutcomeStats {
	if s := r.Outcomes[o.String()]; s != nil {
		return s
	}
	return &OutcomeStats{}
}

// topDetail is the most frequent detail of an outcome.
func (r *Report) topDetail(o Outcome) string {
	best, n := "", int64(-1)
	for k, v := range r.stats(o).Details {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	return best
}

func seconds(d time.Duration) float64 { return d.Seconds() }

func usToSeconds(us int64) float64 { return float64(us) / 1e6 }

func summarise(h *hdr.Histogram) *LatencySummary {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return &LatencySummary{
		P50: usToSeconds(h.ValueAtQuantile(50)),
		P90: usToSeconds(h.ValueAtQuantile(90)),
		P99: usToSeconds(h.ValueAtQuantile(99)),
		Max: usToSeconds(h.Max()),
	}
}

func encodeHist(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

func decodeHist(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, err
	}
	if h.LowestTrackableValue() != histLowest || h.HighestTrackableValue() != histHighest || h.SignificantFigures() != histDigits {
		// Re-bin into the standard geometry so merges stay exact within it.
		std := newHist()
		if dropped := std.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("histogram holds %d values outside 1µs..1h", dropped)
		}
		return std, nil
	}
	return h, nil
}

// setOutcome fills an outcome's entry from its histograms.
func (r *Report) setOutcome(o Outcome, count int64, lat, svc *hdr.Histogram, details map[string]int64) {
	s := &OutcomeStats{Count: count, lat: lat, svc: svc, Details: details}
	if r.Requests > 0 {
		s.Ratio = float64(count) / float64(r.Requests)
	}
	s.Latency = summarise(lat)
	s.HDR = encodeHist(lat)
	s.ServiceHDR = encodeHist(svc)
	r.Outcomes[o.String()] = s
}

// report assembles the report of the run that started at start.
func (e *engine) report(start time.Time, elapsed time.Duration) *Report {
	o := e.o
	t := e.rec.merge()
	r := &Report{
		RunInfo:         o.runInfo(start),
		Target:          o.Target,
		Mode:            string(o.Mode),
		StartedAt:       start.UTC(),
		DurationSeconds: seconds(elapsed),
		Requests:        e.sent.Load(),
		Load: LoadInfo{
			TimeoutSeconds: seconds(e.timeout),
			Actors:         len(o.Actors) + o.ActorCount,
			Distribution:   o.Distribution.String(),
			Seed:           o.Seed,
			Method:         o.Method,
			BudgetSeconds:  seconds(o.Checks.Budget),
			BudgetSource:   o.Checks.BudgetSource,
			SlackSeconds:   seconds(o.Checks.Slack),
			ShedMaxSeconds: seconds(o.Checks.ShedMax),
		},
		Outcomes:       map[string]*OutcomeStats{},
		OpenFilesLimit: e.openFiles,
		samples:        t.samples,
	}
	if r.Target == "" {
		r.Target = o.URLTemplate
	}
	if o.URLTemplate != "" {
		r.Load.Addressing = "url " + o.URLTemplate
	} else {
		r.Load.Addressing = "host " + o.HostTemplate
	}
	switch o.Mode {
	case Burst:
		r.Load.Requests = o.Requests
	case Closed:
		r.Load.Concurrency = o.Concurrency
		r.Load.DurationSeconds = seconds(o.Duration)
	case Open:
		r.Load.Rate = o.Rate
		r.Load.DurationSeconds = seconds(o.Duration)
	}
	for _, oc := range AllOutcomes() {
		r.setOutcome(oc, t.counts[oc], t.lat[oc], t.svc[oc], t.details[oc])
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if o.Mode == Open && r.Requests > 0 {
		window := e.lastSend.Seconds() + 1/o.Rate
		rate := float64(r.Requests) / window
		r.AchievedRate = &rate
		r.lateness = e.lateness
		r.SendLateness = summarise(e.lateness)
		r.SendLatenessHDR = encodeHist(e.lateness)
	}
	r.Series = buildSeries(t, e.inflightSeries, e.activeSeries)
	for _, p := range r.Series {
		r.InFlightPeak = max(r.InFlightPeak, p.InFlightPeak)
	}
	if o.MetricsURL != "" {
		m := &MetricsReport{URL: o.MetricsURL, Before: e.metricsBefore, After: e.metricsAfter, ActivePeak: e.activePeak,
			ScrapeErrors: e.scrapeErrors, LastError: e.lastScrapeErr}
		m.computeDeltas()
		r.Metrics = m
	}
	if o.StatuszURL != "" {
		s := &StatuszReport{URL: e.scr.statuszURL, Before: e.statuszBefore, After: e.statuszAfter, NoParkingCard: e.noParkingCard}
		if o.MetricsURL == "" {
			s.ActivePeak = e.activePeak
		}
		r.Statusz = s
	}
	r.Flights = analyseFlights(t.events, t.eventsDropped, o.Checks.Budget)
	r.evaluate(o.Checks)
	r.leaveRouterChecksToMerge()
	return r
}

func buildSeries(t *tally, inflight []inflightPoint, active map[int]float64) []SeriesPoint {
	n := max(len(t.done), len(t.sent), len(inflight))
	for s := range active {
		n = max(n, s+1)
	}
	out := make([]SeriesPoint, n)
	for s := range out {
		p := SeriesPoint{Second: s, Outcomes: map[string]int64{}}
		if s < len(t.sent) {
			p.Sent = t.sent[s]
		}
		if s < len(t.done) {
			for o, c := range t.done[s] {
				if c > 0 {
					p.Outcomes[Outcome(o).String()] = c
				}
			}
		}
		if s < len(inflight) {
			p.InFlight, p.InFlightPeak = inflight[s].now, inflight[s].peak
		}
		if v, ok := active[s]; ok {
			p.ParkingActive = &v
		}
		out[s] = p
	}
	return out
}

// computeDeltas derives the run's deltas from the before and after scrapes;
// a metric missing from a scrape counts as zero there (OpenTelemetry does
// not export an instrument before its first measurement).
func (m *MetricsReport) computeDeltas() {
	m.RejectedDelta, m.WaitDelta = nil, nil
	if m.Before == nil || m.After == nil {
		return
	}
	d := val(m.After.ParkingRejectedTotal) - val(m.Before.ParkingRejectedTotal)
	m.RejectedDelta = &d
	for outcome, after := range m.After.ParkingWait {
		before := m.Before.ParkingWait[outcome]
		w := WaitStats{Count: after.Count - before.Count, SumSeconds: after.SumSeconds - before.SumSeconds}
		for _, b := range after.Buckets {
			c := b.Count
			for _, bb := range before.Buckets {
				if bb.LE == b.LE {
					c -= bb.Count
				}
			}
			w.Buckets = append(w.Buckets, Bucket{LE: b.LE, Count: c})
		}
		if w.Count == 0 {
			continue
		}
		if m.WaitDelta == nil {
			m.WaitDelta = map[string]WaitStats{}
		}
		m.WaitDelta[outcome] = w
	}
	switch {
	case m.After.ParkingWait["budget_exhausted"].Count > 0:
		m.WaitBudgetLabel = "budget_exhausted"
	case m.After.ParkingWait["error"].Count > 0:
		m.WaitBudgetLabel = "error"
	}
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Check names hold < and >; keep them readable.
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadReport reads a JSON report, as -o json or --out wrote it, with its
// histograms.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a parking-probe JSON report: %s", firstLine(err.Error()))
	}
	if r.Outcomes == nil {
		return nil, errors.New(`not a parking-probe JSON report: no "outcomes"`)
	}
	var total int64
	for name, s := range r.Outcomes {
		if s == nil {
			return nil, fmt.Errorf("outcome %q is null", name)
		}
		if _, ok := ParseOutcome(name); !ok {
			return nil, fmt.Errorf("unknown outcome %q", name)
		}
		if s.Count < 0 {
			return nil, fmt.Errorf("outcome %s has a negative count", name)
		}
		total += s.Count
		if s.Count == 0 {
			continue
		}
		if s.HDR == "" {
			return nil, fmt.Errorf("outcome %s has %d answers but no histogram (hdr); cannot merge it exactly", name, s.Count)
		}
		h, err := decodeHist(s.HDR)
		if err != nil {
			return nil, fmt.Errorf("outcome %s: bad histogram: %v", name, err)
		}
		if h.TotalCount() != s.Count {
			return nil, fmt.Errorf("outcome %s: histogram holds %d answers but count says %d", name, h.TotalCount(), s.Count)
		}
		s.lat = h
		if s.ServiceHDR != "" {
			if s.svc, err = decodeHist(s.ServiceHDR); err != nil {
				return nil, fmt.Errorf("outcome %s: bad service histogram: %v", name, err)
			}
		}
	}
	if total != r.Requests {
		return nil, fmt.Errorf("outcomes add up to %d but requests says %d", total, r.Requests)
	}
	if r.SendLatenessHDR != "" {
		h, err := decodeHist(r.SendLatenessHDR)
		if err != nil {
			return nil, fmt.Errorf("bad send lateness histogram: %v", err)
		}
		r.lateness = h
	}
	return &r, nil
}
