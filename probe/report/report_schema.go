package report

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Report is what a probe measured. Its JSON form (field names stable, times
// in seconds) is the -o json output and the --out file; it carries each
// outcome's HDR histogram so reports from several machines merge exactly.
type Report struct {
	RunInfo
	Target          string                   `json:"target"`
	Transport       string                   `json:"transport,omitempty"` // the probe's own HTTP client: wire (its own connections) or net/http; fasthttp in reports of earlier versions
	Mode            string                   `json:"mode"`
	StartedAt       time.Time                `json:"started_at"`
	DurationSeconds float64                  `json:"duration_seconds"`
	Requests        int64                    `json:"requests"`
	Resends         int64                    `json:"resends,omitempty"` // sends again of requests that provably never reached the server (counted once each in requests)
	Interrupted     bool                     `json:"interrupted"`
	Load            LoadInfo                 `json:"load"`
	Outcomes        map[string]*OutcomeStats `json:"outcomes"`
	InFlightPeak    int64                    `json:"in_flight_peak"`
	// AchievedRate and SendLateness are set in open mode: the rate the
	// probe really sent at, and how late sends were against the schedule.
	AchievedRate *float64 `json:"achieved_rate,omitempty"`
	// ServedLate counts the served answers that came after the park
	// budget (the router after substrate #675 and #1229 serves a resume
	// that outlived it); they are among the served.
	ServedLate      int64           `json:"served_late,omitempty"`
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
	// timeline is the run's exact answers and in-flight per step; nil for
	// a report read back or merged, whose plots rebuild it from samples.
	timeline *Timeline
	// inFlightSteps and activeReads are the run's live plot data
	// (SetLivePlotData); nil for a report read back or merged.
	inFlightSteps []int64
	activeReads   []Point
	// optionName names the run's options in the report's texts (the
	// checks' details, the text rendering): CheckConfig.OptionName of
	// its Evaluate.
	optionName func(field string) string
}

// LoadInfo records how the load was shaped and checked.
type LoadInfo struct {
	Requests    int     `json:"requests,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	// Scheduled is how many requests an open run's schedule held for
	// this process (its shard's part of the schedule).
	Scheduled       int64   `json:"scheduled,omitempty"`
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	TimeoutSeconds  float64 `json:"timeout_seconds"`
	Actors          int     `json:"actors"`
	Distribution    string  `json:"distribution"`
	Seed            uint64  `json:"seed"`
	Method          string  `json:"method"`
	// Addressing is where the actor went: "host <template>", "url
	// <template>" and/or "header <name>: <template>" (joined by "; "),
	// then " (form <name>)" for a named addressing form.
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
	// a spent budget, as seen: "budget_exhausted" (sim router's default
	// model), "error" (agent-substrate/substrate PR #221 at 4a8f978b,
	// parkOutcomeError in cmd/atenet/internal/router/parking.go) or ""
	// (none seen).
	WaitBudgetLabel string `json:"wait_budget_label,omitempty"`
	// ActivePeak is the highest parking_active scraped before, during
	// (four times a second) and after the run: a lower bound of the
	// router's own peak, which can fall between two scrapes.
	ActivePeak   *float64 `json:"parking_active_peak"`
	ScrapeErrors int      `json:"scrape_errors"`
	LastError    string   `json:"last_error,omitempty"`
}

// StatuszReport is the router's status card around the run.
type StatuszReport struct {
	URL    string          `json:"url"`
	Before *StatuszParking `json:"before"`
	After  *StatuszParking `json:"after"`
	// ActivePeak is the highest statusz active read, set when statusz
	// (not metrics) was polled during the run: a lower bound of the
	// router's own peak.
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

	// ParkingActiveAt is when ParkingActive was scraped, in seconds from
	// the start of the run (a report from before it was kept has none).
	ParkingActiveAt *float64 `json:"parking_active_at,omitempty"`
}

// MarshalJSON writes a second without answers with "outcomes": {}, as
// the schema wants, also when Outcomes is nil (a merge leaves it nil in
// the seconds no source had a point for, so a long merged series is not
// one map a second).
func (p SeriesPoint) MarshalJSON() ([]byte, error) {
	type plain SeriesPoint
	if p.Outcomes == nil {
		p.Outcomes = map[string]int64{}
	}
	return json.Marshal(plain(p))
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

// Count is how many requests ended in outcome o.
func (r *Report) Count(o Outcome) int64 {
	if s := r.Outcomes[o.String()]; s != nil {
		return s.Count
	}
	return 0
}

// Stats is outcome o's entry, or an empty one when o did not occur.
func (r *Report) Stats(o Outcome) *OutcomeStats {
	if s := r.Outcomes[o.String()]; s != nil {
		return s
	}
	return &OutcomeStats{}
}

// TopDetail is the most frequent detail of an outcome.
func (r *Report) TopDetail(o Outcome) string {
	best, n := "", int64(-1)
	for k, v := range r.Stats(o).Details {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	return best
}

// SetSendLateness records an open run's send lateness histogram (how late
// each send was against the schedule) and its summary.
func (r *Report) SetSendLateness(h *hdr.Histogram) {
	r.lateness = h
	r.SendLateness = summarise(h)
	r.SendLatenessHDR = encodeHist(h)
}

// SetPlotData keeps, on a report of a run just made, the per-request
// samples and the exact timeline its plots draw; a report read back or
// merged has neither, and its plots use its per-second series.
func (r *Report) SetPlotData(samples []Sample, tl *Timeline) {
	r.samples, r.timeline = samples, tl
}

// SetLivePlotData gives a run's report what only the run saw, for its
// plot: the most requests in flight within each TimelineStep, and every
// read of the router's parking_active at the time it was read (X in
// seconds from the start). Neither is in the JSON.
func (r *Report) SetLivePlotData(inFlightSteps []int64, activeReads []Point) {
	r.inFlightSteps, r.activeReads = inFlightSteps, activeReads
}

// SetOutcome fills an outcome's entry from its histograms.
func (r *Report) SetOutcome(o Outcome, count int64, lat, svc *hdr.Histogram, details map[string]int64) {
	s := &OutcomeStats{Count: count, lat: lat, svc: svc, Details: details}
	if r.Requests > 0 {
		s.Ratio = float64(count) / float64(r.Requests)
	}
	s.Latency = summarise(lat)
	s.HDR = encodeHist(lat)
	s.ServiceHDR = encodeHist(svc)
	r.Outcomes[o.String()] = s
}

// The report's "mode" values: the load shape that ran, or mixed for a
// merge of runs of different shapes. The engine's Mode constants are these.
const (
	ModeBurst  = "burst"
	ModeClosed = "closed"
	ModeOpen   = "open"
	ModeMixed  = "mixed"
)

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// LatencyHistogram is the outcome's latency histogram (microseconds, from
// each request's due time) of a report just made or merged, or nil (a
// report read back holds it encoded: see Histograms).
func (s *OutcomeStats) LatencyHistogram() *hdr.Histogram { return s.lat }

// ServiceHistogram is the histogram of time from each request's write to
// its answer (burst and open modes), or nil.
func (s *OutcomeStats) ServiceHistogram() *hdr.Histogram { return s.svc }
