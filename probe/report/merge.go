package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// CheckConfigOf returns the check thresholds a report was made with.
func CheckConfigOf(r *Report) CheckConfig {
	return CheckConfig{
		Budget: time.Duration(r.Load.BudgetSeconds * float64(time.Second)),
		Slack:  time.Duration(r.Load.SlackSeconds * float64(time.Second)),
		// The report records the slack it used, zero included.
		SlackSet:     true,
		BudgetSource: r.Load.BudgetSource,
		ShedMax:      time.Duration(r.Load.ShedMaxSeconds * float64(time.Second)),
	}
}

// Merge combines reports of probes run together (on several machines, at
// the same --start-at) into one: counts add, histograms merge exactly, time
// series align on the wall clock, and the router's metrics span from the
// earliest scrape before to the latest scrape after. Checks are evaluated
// afresh with cfg.
func Merge(reports []*Report, cfg CheckConfig) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("nothing to merge")
	}
	// Everything cheap first, before a histogram is decoded or a series
	// point allocated: the schema, each report's series against its
	// duration, and the time all of them span.
	if err := checkMergeSpan(reports); err != nil {
		return nil, err
	}
	cfg.ApplyDefaults()
	first := reports[0]
	m := &Report{
		RunInfo:   mergedRunInfo(reports),
		Target:    first.Target,
		Mode:      first.Mode,
		StartedAt: first.StartedAt,
		Load:      first.Load,
		Outcomes:  map[string]*OutcomeStats{},
	}
	m.Load.BudgetSeconds, m.Load.SlackSeconds, m.Load.ShedMaxSeconds = seconds(cfg.Budget), seconds(cfg.Slack), seconds(cfg.ShedMax)
	m.Load.BudgetSource = cfg.BudgetSource
	targets := map[string]bool{}
	end := first.StartedAt
	var lat, svc [NumOutcomes]*hdr.Histogram
	var counts [NumOutcomes]int64
	var details [NumOutcomes]map[string]int64
	var rate float64
	allOpen := true
	for i, r := range reports {
		targets[r.Target] = true
		if r.Mode != m.Mode {
			m.Mode = ModeMixed
		}
		if r.StartedAt.Before(m.StartedAt) {
			m.StartedAt = r.StartedAt
		}
		if e := r.StartedAt.Add(time.Duration(r.DurationSeconds * float64(time.Second))); e.After(end) {
			end = e
		}
		m.Requests += r.Requests
		m.Resends += r.Resends
		m.Interrupted = m.Interrupted || r.Interrupted
		if i > 0 {
			m.Load.Requests += r.Load.Requests
			m.Load.Concurrency += r.Load.Concurrency
			m.Load.Scheduled += r.Load.Scheduled
			if m.Shards <= 1 {
				// Shards send their slots of one schedule at its rate;
				// separate runs each had their own.
				m.Load.Rate += r.Load.Rate
			}
		}
		for name, s := range r.Outcomes {
			o, ok := ParseOutcome(name)
			if !ok {
				return nil, fmt.Errorf("report %d: unknown outcome %q", i+1, name)
			}
			// Decoded one report at a time and not kept: the merge holds
			// its own sums and one report's histograms.
			h, sh, err := s.Histograms()
			if err != nil {
				return nil, fmt.Errorf("report %d: outcome %s: %v", i+1, name, err)
			}
			counts[o] += s.Count
			MergeHistogram(&lat[o], h)
			MergeHistogram(&svc[o], sh)
			for k, v := range s.Details {
				if details[o] == nil {
					details[o] = map[string]int64{}
				}
				details[o][k] += v
			}
		}
		if r.AchievedRate != nil {
			rate += *r.AchievedRate
		} else {
			allOpen = false
		}
		h, err := r.sendLateness()
		if err != nil {
			return nil, fmt.Errorf("report %d: %v", i+1, err)
		}
		MergeHistogram(&m.lateness, h)
	}
	var names []string
	for t := range targets {
		names = append(names, t)
	}
	sort.Strings(names)
	m.Target = strings.Join(names, ", ")
	m.DurationSeconds = end.Sub(m.StartedAt).Seconds()
	for _, o := range AllOutcomes() {
		m.SetOutcome(o, counts[o], lat[o], svc[o], details[o])
	}
	if allOpen {
		m.AchievedRate = &rate
		m.SendLateness = summarise(m.lateness)
		m.SendLatenessHDR = encodeHist(m.lateness)
	}
	m.Series = mergeSeries(m.StartedAt, reports)
	for _, p := range m.Series {
		m.InFlightPeak = max(m.InFlightPeak, p.InFlightPeak)
	}
	for _, r := range reports {
		if r.Flights == nil {
			continue
		}
		if m.Flights == nil {
			m.Flights = &FlightStats{FastestFirstSeconds: r.Flights.FastestFirstSeconds}
		}
		m.Flights.Flights += r.Flights.Flights
		m.Flights.RefusedEarly += r.Flights.RefusedEarly
		m.Flights.Unrecorded += r.Flights.Unrecorded
		if r.Flights.Flights > 0 && (m.Flights.Flights == r.Flights.Flights || r.Flights.FastestFirstSeconds < m.Flights.FastestFirstSeconds) {
			m.Flights.FastestFirstSeconds = r.Flights.FastestFirstSeconds
		}
	}
	m.Metrics = mergeMetrics(reports)
	m.Statusz = mergeStatusz(reports)
	if len(cfg.Expect) == 0 {
		// Keep the runs' own expectations.
		cfg.Expect = sourceExpectations(reports)
	}
	m.Evaluate(cfg)
	m.Checks = append(m.Checks, sourcesPassed(reports))
	return m, nil
}

// checkMergeSpan refuses reports whose merge would allocate more than
// their runs can need: an unknown schema, a series beyond its run's
// duration, or runs that together span more than MaxRunSeconds (the
// merged series has a point for every second from the first start to the
// last end).
func checkMergeSpan(reports []*Report) error {
	var first, last time.Time
	for i, r := range reports {
		if r == nil {
			return fmt.Errorf("report %d is missing", i+1)
		}
		if err := CheckSchema(r); err != nil {
			return fmt.Errorf("report %d: %w", i+1, err)
		}
		if err := r.checkSpan(); err != nil {
			return fmt.Errorf("report %d: %w", i+1, err)
		}
		if i == 0 || r.StartedAt.Before(first) {
			first = r.StartedAt
		}
		if e := reportEnd(r); i == 0 || e.After(last) {
			last = e
		}
	}
	if span := last.Sub(first); span < 0 || span.Seconds() > MaxRunSeconds || first.Year() < 1 || last.Year() > 9999 {
		return &MergeError{Msg: fmt.Sprintf("the reports span %s to %s, more than a day: not one run (merge reports of runs made together)",
			first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))}
	}
	return nil
}

// CheckSourcesPassed fails a merged report when one of its runs failed a
// check: a failed run does not merge into a pass.
const CheckSourcesPassed = "sources_passed"

func sourcesPassed(reports []*Report) Check {
	var bad []string
	for i, r := range reports {
		if f := r.Failed(); len(f) > 0 {
			bad = append(bad, fmt.Sprintf("run %d failed %s", i+1, strings.Join(f, ", ")))
		}
	}
	if len(bad) > 0 {
		return failed(CheckSourcesPassed, strings.Join(bad, "; "))
	}
	return ok(CheckSourcesPassed, fmt.Sprintf("all %d runs passed their own checks", len(reports)))
}

// sourceExpectations re-reads the --expect of each run from its checks'
// names ("expect TEXT"), once each.
func sourceExpectations(reports []*Report) []Expectation {
	var out []Expectation
	seen := map[string]bool{}
	for _, r := range reports {
		for _, c := range r.Checks {
			text, ok := strings.CutPrefix(c.Name, "expect ")
			if !ok || seen[text] {
				continue
			}
			seen[text] = true
			if e, err := ParseExpectations([]string{text}); err == nil {
				out = append(out, e...)
			}
		}
	}
	return out
}

// MergeError says reports should not be merged.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

// CheckMergeable refuses the same run twice, and runs of different targets
// or modes unless allowMixed. Shards of one run may start at the same
// instant (one clock, --start-at): their shard indexes tell them apart.
func CheckMergeable(reports []*Report, names []string, allowMixed bool) error {
	type key struct {
		target, mode string
		started      time.Time
		requests     int64
		seed         uint64
		shard        int
	}
	seen := map[key]int{}
	for i, r := range reports {
		shard := -1
		if r.Shard != nil {
			shard = *r.Shard
		}
		k := key{r.Target, r.Mode, r.StartedAt, r.Requests, r.Load.Seed, shard}
		if j, dup := seen[k]; dup {
			return &MergeError{Msg: fmt.Sprintf("%s and %s are the same run (target, mode, start, requests, seed and shard agree): merging it twice would double its counts", names[j], names[i])}
		}
		seen[k] = i
		if allowMixed || i == 0 {
			continue
		}
		if r.Target != reports[0].Target {
			return &MergeError{Msg: fmt.Sprintf("%s probed %s but %s probed %s: different targets (allow with the mixed flag)", names[0], reports[0].Target, names[i], r.Target)}
		}
		if r.Mode != reports[0].Mode {
			return &MergeError{Msg: fmt.Sprintf("%s ran mode %s but %s ran %s: different modes (allow with the mixed flag)", names[0], reports[0].Mode, names[i], r.Mode)}
		}
	}
	return nil
}

func mergeSeries(start time.Time, reports []*Report) []SeriesPoint {
	// Never nil: the report's "series" is an array (the schema says so, and
	// scripts index it), also when no source had a point.
	out := []SeriesPoint{}
	for _, r := range reports {
		exact := r.StartedAt.Sub(start).Seconds()
		off := int(math.Round(exact))
		for _, p := range r.Series {
			s := p.Second + off
			for len(out) <= s {
				// Outcomes stays nil until a second has answers; it is
				// written as {} (SeriesPoint.MarshalJSON).
				out = append(out, SeriesPoint{Second: len(out)})
			}
			q := &out[s]
			q.Sent += p.Sent
			q.InFlight += p.InFlight
			q.InFlightPeak += p.InFlightPeak
			for k, v := range p.Outcomes {
				if q.Outcomes == nil {
					q.Outcomes = map[string]int64{}
				}
				q.Outcomes[k] += v
			}
			if p.ParkingActive != nil && (q.ParkingActive == nil || *p.ParkingActive > *q.ParkingActive) {
				v := *p.ParkingActive
				q.ParkingActive, q.ParkingActiveAt = &v, nil
				if p.ParkingActiveAt != nil {
					// On the merged clock, as the router was read.
					at := *p.ParkingActiveAt + exact
					q.ParkingActiveAt = &at
				}
			}
		}
	}
	return out
}

func reportEnd(r *Report) time.Time {
	return r.StartedAt.Add(time.Duration(r.DurationSeconds * float64(time.Second)))
}

// widest keeps, of the router views the merged reports took, the "before"
// of the report that started first and the "after" of the one that ended
// last: the router figures then span every shard's window.
type widest[T any] struct {
	before, after *T
	first, last   time.Time
}

func (w *widest[T]) add(r *Report, before, after *T) {
	if before != nil && (w.before == nil || r.StartedAt.Before(w.first)) {
		w.before, w.first = before, r.StartedAt
	}
	if after != nil && (w.after == nil || reportEnd(r).After(w.last)) {
		w.after, w.last = after, reportEnd(r)
	}
}

// higherPeak is the higher of two optional peaks, as a copy.
func higherPeak(peak, other *float64) *float64 {
	if other != nil && (peak == nil || *other > *peak) {
		v := *other
		return &v
	}
	return peak
}

func mergeMetrics(reports []*Report) *MetricsReport {
	var out *MetricsReport
	var w widest[RouterMetrics]
	for _, r := range reports {
		mr := r.Metrics
		if mr == nil {
			continue
		}
		if out == nil {
			out = &MetricsReport{URL: mr.URL}
		}
		w.add(r, mr.Before, mr.After)
		out.ActivePeak = higherPeak(out.ActivePeak, mr.ActivePeak)
		out.ScrapeErrors += mr.ScrapeErrors
		if mr.LastError != "" {
			out.LastError = mr.LastError
		}
	}
	if out != nil {
		out.Before, out.After = w.before, w.after
		out.ComputeDeltas()
	}
	return out
}

func mergeStatusz(reports []*Report) *StatuszReport {
	var out *StatuszReport
	var w widest[StatuszParking]
	for _, r := range reports {
		sr := r.Statusz
		if sr == nil {
			continue
		}
		if out == nil {
			out = &StatuszReport{URL: sr.URL}
		}
		w.add(r, sr.Before, sr.After)
		out.NoParkingCard = out.NoParkingCard || sr.NoParkingCard
		out.ActivePeak = higherPeak(out.ActivePeak, sr.ActivePeak)
	}
	if out != nil {
		out.Before, out.After = w.before, w.after
	}
	return out
}

// CheckSchema refuses a report whose schema major version this build does
// not know. A report without a schema predates the field (it was v1).
func CheckSchema(r *Report) error {
	if r.Schema == "" {
		return nil
	}
	return CheckSchemaVersion(r.Schema)
}

// CheckRun refuses shards that are not exactly one run: when any report
// is a shard (shards > 1), all must carry the same run id and shard count,
// and every shard 0..N-1 must be there once. names[i] names reports[i] in
// the error, which lists every problem found. Reports of unsharded runs
// pass (CheckMergeable judges them).
func CheckRun(reports []*Report, names []string) error {
	sharded := slices.ContainsFunc(reports, func(r *Report) bool { return r.Shards > 1 })
	if !sharded {
		return nil
	}
	// The run is the one most reports belong to (the first seen on a tie).
	votes := map[string]int{}
	var order []string
	for _, r := range reports {
		if votes[r.RunID] == 0 {
			order = append(order, r.RunID)
		}
		votes[r.RunID]++
	}
	run := order[0]
	for _, id := range order {
		if votes[id] > votes[run] {
			run = id
		}
	}
	var problems []string
	n, nName := 0, ""
	bySlot := map[int][]string{}
	for i, r := range reports {
		switch {
		case r.RunID != run:
			problems = append(problems, fmt.Sprintf("%s belongs to run %q, not %q", names[i], r.RunID, run))
			continue
		case r.Shard == nil:
			problems = append(problems, fmt.Sprintf("%s of run %s names no shard (a merged report?)", names[i], run))
			continue
		case n == 0:
			n, nName = r.Shards, names[i]
		case r.Shards != n:
			problems = append(problems, fmt.Sprintf("%s says the run has %d shards, %s says %d", names[i], r.Shards, nName, n))
			continue
		}
		bySlot[*r.Shard] = append(bySlot[*r.Shard], names[i])
	}
	// The shard count is the report's word: list the first few missing
	// shards and count the rest, without a step for each of a billion.
	var missing []string
	present := 0
	for slot, got := range bySlot {
		if slot >= 0 && slot < n {
			present++
		}
		if len(got) > 1 {
			problems = append(problems, fmt.Sprintf("shard %d appears %d times (%s): merging it twice would double its counts", slot, len(got), strings.Join(got, ", ")))
		}
	}
	for i := 0; i < n && len(missing) < maxListed; i++ {
		if len(bySlot[i]) == 0 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if more := n - present - len(missing); more > 0 {
		missing = append(missing, fmt.Sprintf("and %d more", more))
	}
	for slot, got := range bySlot {
		if slot < 0 || slot >= n {
			problems = append(problems, fmt.Sprintf("%s is shard %d of a %d-shard run", strings.Join(got, ", "), slot, n))
		}
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("shard %s of %d missing (run %s): every shard's report is needed for an exact merge", strings.Join(missing, ", "), n, run))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return &MergeError{Msg: "not one whole sharded run: " + strings.Join(problems, "; ")}
	}
	return nil
}

// maxListed is how many missing shards an error names.
const maxListed = 10

// mergedRunInfo names a merged report: the run and shard count when its
// sources are the shards of one run (with the latest start lateness and
// the spread of the shards' starts), else only the schema.
func mergedRunInfo(reports []*Report) RunInfo {
	ri := RunInfo{Schema: SchemaVersion}
	first := reports[0]
	for _, r := range reports {
		if r.Shards <= 1 || r.RunID != first.RunID {
			return ri
		}
	}
	ri.RunID, ri.Shards = first.RunID, first.Shards
	earliest, latest := first.StartedAt, first.StartedAt
	for _, r := range reports {
		if r.StartLatenessSeconds != nil && (ri.StartLatenessSeconds == nil || *r.StartLatenessSeconds > *ri.StartLatenessSeconds) {
			v := *r.StartLatenessSeconds
			ri.StartLatenessSeconds = &v
		}
		earliest, latest = minTime(earliest, r.StartedAt), maxTime(latest, r.StartedAt)
	}
	spread := latest.Sub(earliest).Seconds()
	ri.StartSpreadSeconds = &spread
	return ri
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
