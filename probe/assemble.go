package probe

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Assembly of a Report from a finished run: the recorder's tally, the
// sampler's series, the scrapes, then the checks.

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
		Transport:       e.transport,
		Mode:            string(o.Mode),
		StartedAt:       start.UTC(),
		DurationSeconds: seconds(elapsed),
		Requests:        e.sent.Load(),
		Resends:         e.resends.Load(),
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
		timeline:       t.timeline,
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
	r.Series = buildSeries(t, e.inflightSeries, e.activeSeries, e.activeAt)
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

func buildSeries(t *tally, inflight []inflightPoint, active map[int]float64, activeAt map[int]time.Duration) []SeriesPoint {
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
			if at, ok := activeAt[s]; ok {
				sec := at.Seconds()
				p.ParkingActiveAt = &sec
			}
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
