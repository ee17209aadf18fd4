package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// FigureVersion is the version of Figure's JSON form, which the HTML
// page's script (probe/htmlplot) reads; the page is written by the same
// build, so a figure of another version is a bug, not a user's mistake.
const FigureVersion = 1

// Figure is what a --plot page draws, prepared from a report: three panels'
// points, their labels and the facts of the run they mark. It travels into
// the page as JSON (probe/htmlplot), so it holds plain numbers only.
type Figure struct {
	Version int `json:"version"`
	// Load names the run in the first panel's title.
	Load string `json:"load"`
	Mode string `json:"mode"`
	// BudgetSeconds is the park budget (0: unknown).
	BudgetSeconds float64 `json:"budget_seconds,omitempty"`
	// Scale is how many requests one sample stands for (1: every request
	// was counted).
	Scale float64 `json:"scale"`
	// StepSeconds is the width of one step of the time panels.
	StepSeconds float64 `json:"step_seconds"`
	// EndSeconds is when the run ended, from its start: where the time
	// panels' x axis ends.
	EndSeconds float64 `json:"end_seconds"`
	// InFlightStepSeconds is the width of one step of the in-flight line:
	// StepSeconds for a run's own plot, 1 for a report read back.
	InFlightStepSeconds float64 `json:"in_flight_step_seconds"`
	// Spectra holds each outcome's latency percentile spectrum: X is
	// 1/(1-p), Y the latency in seconds.
	Spectra []OutcomeSeries `json:"spectra"`
	// Answers holds each outcome's answers per step; X is the step's start
	// in seconds.
	Answers []OutcomeSeries `json:"answers"`
	// InFlight is the most requests in flight within each step: for a
	// run's own plot each step of the answers (its highest point is the
	// report's in_flight_peak), for a report read back each second of its
	// series. Each point starts its step; a last point closes the final
	// one at the end of the run. Only a report without either has the
	// timeline's count at the end of each step instead.
	InFlight []Point `json:"in_flight"`
	// ParkingActive is the router's gauge at the time of each scrape: for
	// a run's own plot every read (four a second), for a report read back
	// the highest read of each second. The router's parked count next to
	// the probe's in flight at the moment it was read.
	ParkingActive []Point `json:"parking_active,omitempty"`
}

// OutcomeSeries is one outcome's line, in the order of AllOutcomes.
type OutcomeSeries struct {
	Outcome string  `json:"outcome"`
	Count   int64   `json:"count"`
	Points  []Point `json:"points"`
}

// Point is one point of a line.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Step is StepSeconds as a duration, for labels.
func (f *Figure) Step() time.Duration {
	return time.Duration(math.Round(f.StepSeconds * float64(time.Second)))
}

// Check says whether a figure read from JSON can be drawn.
func (f *Figure) Check() error {
	if f.Version != FigureVersion {
		return fmt.Errorf("figure version %d, this build draws version %d", f.Version, FigureVersion)
	}
	if f.StepSeconds <= 0 || f.Scale <= 0 {
		return errors.New("figure has no time step or scale")
	}
	for _, set := range [][]OutcomeSeries{f.Spectra, f.Answers} {
		for _, s := range set {
			if _, ok := ParseOutcome(s.Outcome); !ok {
				return fmt.Errorf("figure names an unknown outcome %q", s.Outcome)
			}
		}
	}
	return nil
}

// spectrumMaxX bounds the spectrum's x axis at the 99.999th percentile.
const spectrumMaxX = 1e5

// NewFigure prepares what a --plot file draws from a report. The time
// panels count every answer: from the run's own timeline (100 ms steps),
// else from kept samples (Scale says how many requests each stands for),
// else, for a report read back from JSON or merged, from its per-second
// series. The spectra use the report's histograms, which merge exactly.
func NewFigure(r *Report) (*Figure, error) {
	// The time panels have a point a second of the series: bounded by the
	// run, as ReadReport and Merge hold it.
	if err := r.checkSpan(); err != nil {
		return nil, err
	}
	f := &Figure{Version: FigureVersion, Load: describeLoad(r), Mode: r.Mode, BudgetSeconds: r.Load.BudgetSeconds, Scale: 1, EndSeconds: r.DurationSeconds}
	for _, o := range AllOutcomes() {
		st := r.Outcomes[o.String()]
		if st == nil || st.Count == 0 {
			continue
		}
		h, _, err := st.Histograms()
		if err != nil {
			return nil, fmt.Errorf("outcome %s: %w", o, err)
		}
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		f.Spectra = append(f.Spectra, OutcomeSeries{Outcome: o.String(), Count: st.Count, Points: spectrum(h)})
	}
	if r.timeline == nil && len(r.samples) == 0 && len(r.Series) == 0 && len(f.Spectra) == 0 {
		return nil, errors.New("nothing to plot: the report has no samples")
	}
	if r.timeline == nil && len(r.samples) == 0 {
		// A report read back from JSON, or merged: its per-second series
		// counts every answer, at a coarser step.
		f.seriesPanels(r)
		return f, nil
	}
	tl := r.timeline
	if tl == nil {
		tl, f.Scale = timelineFromSamples(r.samples, r.Requests)
	}
	v := tl.view()
	f.StepSeconds = v.step.Seconds()
	// Each point starts its step (drawn as steps); a last point closes the
	// final step.
	v.answers = append(v.answers, [NumOutcomes]int64{})
	v.inFlight = append(v.inFlight, 0)
	for _, o := range AllOutcomes() {
		if n := r.Count(o); n > 0 {
			pts := make([]Point, len(v.answers))
			for i, row := range v.answers {
				pts[i] = Point{X: float64(i) * f.StepSeconds, Y: float64(row[o]) * f.Scale}
			}
			f.Answers = append(f.Answers, OutcomeSeries{Outcome: o.String(), Count: n, Points: pts})
		}
	}
	f.InFlightStepSeconds = f.StepSeconds
	switch {
	case len(r.inFlightSteps) > 0 && v.step == TimelineStep:
		f.InFlight = stepPeaks(r.inFlightSteps, f.StepSeconds, r.DurationSeconds)
	default:
		if f.InFlight = inFlightPeaks(r.Series, r.DurationSeconds); f.InFlight != nil {
			f.InFlightStepSeconds = 1
			break
		}
		f.InFlight = make([]Point, len(v.inFlight))
		for i, n := range v.inFlight {
			f.InFlight[i] = Point{X: float64(i) * f.StepSeconds, Y: float64(n) * f.Scale}
		}
	}
	if len(r.activeReads) > 0 {
		f.ParkingActive = slices.Clone(r.activeReads)
		slices.SortStableFunc(f.ParkingActive, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
	} else {
		f.ParkingActive = parkingActive(r.Series)
	}
	return f, nil
}

// stepPeaks draws the most requests in flight within each step, each
// point starting its step, and a last point closing the final step at
// the end of the run (duration, in seconds) when that falls within it.
func stepPeaks(peaks []int64, step, duration float64) []Point {
	pts := make([]Point, len(peaks)+1)
	for i, n := range peaks {
		pts[i] = Point{X: float64(i) * step, Y: float64(n)}
	}
	end := &pts[len(peaks)]
	end.X = float64(len(peaks)) * step
	if duration > end.X-step && duration < end.X {
		end.X = duration
	}
	return pts
}

// inFlightPeaks draws the series' in-flight peaks, one step a second: the
// timeline's steps only know the count at their end, which in a burst is
// far below the peak the report prints (the requests sent and the first
// answers fall in one step). A merged report's peaks are the sums of its
// shards' in each second, as its in_flight_peak is. The last point closes
// the final second at the end of the run (duration, in seconds), when that
// falls within it: a run of 2.01 s had nothing in flight at 2.9 s.
func inFlightPeaks(series []SeriesPoint, duration float64) []Point {
	if len(series) == 0 {
		return nil
	}
	last := -1
	for _, p := range series {
		last = max(last, p.Second)
	}
	pts := make([]Point, last+2)
	for i := range pts {
		pts[i].X = float64(i)
	}
	for _, p := range series {
		if p.Second >= 0 {
			pts[p.Second].Y = float64(p.InFlightPeak)
			if p.Second == last {
				pts[last+1].Y = float64(p.InFlight)
			}
		}
	}
	if end := &pts[last+1]; duration > float64(last) && duration < end.X {
		end.X = duration
	}
	return pts
}

// parkingActive places each of the router's samples when it was scraped;
// a report from before that was kept has the end of the sample's second,
// when the sampler reads it.
func parkingActive(series []SeriesPoint) []Point {
	var pts []Point
	for _, p := range series {
		if p.ParkingActive == nil {
			continue
		}
		x := float64(p.Second) + 1
		if p.ParkingActiveAt != nil {
			x = *p.ParkingActiveAt
		}
		pts = append(pts, Point{X: x, Y: *p.ParkingActive})
	}
	// A merged second may keep a sample read before the previous one's.
	slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
	return pts
}

// seriesPanels fills the time panels from the report's per-second series:
// the answers of each outcome in each second, and the requests in flight
// at the end of it. Like the run's own timeline, each point starts its
// step and a last point closes the final one.
func (f *Figure) seriesPanels(r *Report) {
	f.StepSeconds, f.InFlightStepSeconds = 1, 1
	last := -1
	for _, p := range r.Series {
		last = max(last, p.Second)
	}
	// One point per second, and one to close the last.
	seconds := func() []Point {
		pts := make([]Point, last+2)
		for i := range pts {
			pts[i].X = float64(i)
		}
		return pts
	}
	answers := map[string][]Point{}
	f.InFlight = inFlightPeaks(r.Series, r.DurationSeconds)
	for _, p := range r.Series {
		if p.Second < 0 {
			continue
		}
		for name, c := range p.Outcomes {
			if answers[name] == nil {
				answers[name] = seconds()
			}
			answers[name][p.Second].Y += float64(c)
		}
	}
	for _, o := range AllOutcomes() {
		if pts := answers[o.String()]; pts != nil && r.Count(o) > 0 {
			f.Answers = append(f.Answers, OutcomeSeries{Outcome: o.String(), Count: r.Count(o), Points: pts})
		}
	}
	f.ParkingActive = parkingActive(r.Series)
}

// spectrum samples a histogram's percentiles evenly on a log scale of
// 1/(1-p), up to the point where one request is the whole tail.
func spectrum(h *hdr.Histogram) []Point {
	n := float64(h.TotalCount())
	// Up to the next power of ten, so the axis ends on a labelled
	// percentile; beyond n the curve is flat at the maximum.
	limit := math.Min(spectrumMaxX, math.Pow(10, math.Ceil(math.Log10(math.Max(n, 10)))))
	var pts []Point
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/20)
		if x > limit {
			break
		}
		q := 100 * (1 - 1/x)
		pts = append(pts, Point{X: x, Y: float64(h.ValueAtQuantile(q)) / 1e6})
	}
	return append(pts, Point{X: limit, Y: float64(h.Max()) / 1e6})
}
