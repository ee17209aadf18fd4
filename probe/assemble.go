package probe

import (
	"time"

	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/probe/report"
)

// Assembly of a Report from a finished run: the recorder's tally, the
// sampler's series, the scrapes, then the checks.

// report assembles the report of the run that started at start.
func (e *engine) report(start time.Time, elapsed time.Duration) *report.Report {
	o := e.o
	t := e.rec.merge()
	r := &report.Report{
		RunInfo:         o.runInfo(start),
		Target:          redact.URL(o.Target), // the report is printed and shared: no password
		Transport:       e.transport,
		Mode:            string(o.Mode),
		StartedAt:       start.UTC(),
		DurationSeconds: seconds(elapsed),
		Requests:        e.sent.Load(),
		Resends:         e.resends.Load(),
		Load: report.LoadInfo{
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
		Outcomes:       map[string]*report.OutcomeStats{},
		OpenFilesLimit: e.openFiles,
	}
	r.SetPlotData(t.samples, t.timeline)
	if r.Target == "" {
		r.Target = redact.URL(o.URLTemplate)
	}
	r.Load.Addressing = o.addressingSummary()
	switch o.Mode {
	case Burst:
		r.Load.Requests = o.Requests
	case Closed:
		r.Load.Concurrency = o.Concurrency
		r.Load.DurationSeconds = seconds(o.Duration)
	case Open:
		r.Load.Rate = o.Rate
		r.Load.DurationSeconds = seconds(o.Duration)
		r.Load.Scheduled = int64(o.Shard.OpenRequests(o.pacer().Requests()))
	}
	for _, oc := range report.AllOutcomes() {
		r.SetOutcome(oc, t.counts[oc], t.lat[oc], t.svc[oc], t.details[oc])
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if o.Mode == Open && r.Requests > 0 {
		rate := o.pacer().Achieved(r.Requests, t.lastSend)
		r.AchievedRate = &rate
		r.SetSendLateness(t.lateness)
	}
	r.Series = buildSeries(t, e.inflightSeries, e.activeSeries, e.activeAt)
	r.SetLivePlotData(e.stepPeaks, e.activeReads)
	for _, p := range r.Series {
		r.InFlightPeak = max(r.InFlightPeak, p.InFlightPeak)
	}
	if o.MetricsURL != "" {
		m := &report.MetricsReport{URL: redact.URL(o.MetricsURL), Before: e.metricsBefore, After: e.metricsAfter, ActivePeak: e.activePeak,
			ScrapeErrors: e.scrapeErrors, LastError: e.lastScrapeErr}
		m.ComputeDeltas()
		r.Metrics = m
	}
	if o.StatuszURL != "" {
		s := &report.StatuszReport{URL: redact.URL(e.scr.statuszURL), Before: e.statuszBefore, After: e.statuszAfter, NoParkingCard: e.noParkingCard}
		if o.MetricsURL == "" {
			s.ActivePeak = e.activePeak
		}
		r.Statusz = s
	}
	r.Flights = analyseFlights(t.events, t.eventsDropped, o.Checks.Budget)
	// A shard's report leaves the router-wide checks to the merge
	// (Evaluate skips them when the report is one shard of several).
	r.Evaluate(o.Checks)
	return r
}

func buildSeries(t *tally, inflight []inflightPoint, active map[int]float64, activeAt map[int]time.Duration) []report.SeriesPoint {
	n := max(len(t.done), len(t.sent), len(inflight))
	for s := range active {
		n = max(n, s+1)
	}
	out := make([]report.SeriesPoint, n)
	for s := range out {
		p := report.SeriesPoint{Second: s, Outcomes: map[string]int64{}}
		if s < len(t.sent) {
			p.Sent = t.sent[s]
		}
		if s < len(t.done) {
			for o, c := range t.done[s] {
				if c > 0 {
					p.Outcomes[report.Outcome(o).String()] = c
				}
			}
		}
		if s < len(inflight) {
			p.InFlight, p.InFlightPeak = inflight[s].now, inflight[s].peak
		}
		if v, ok := active[s]; ok {
			p.ParkingActive = &v
			if at, ok := activeAt[s]; ok {
				sec := at.Seconds()
				p.ParkingActiveAt = &sec
			}
		}
		out[s] = p
	}
	return out
}

func seconds(d time.Duration) float64 { return d.Seconds() }
