package probe

import (
	"bytes"
	"context"
	"reflect"
	"testing"
	"time"
)

// A report read back from its JSON has no samples or timeline, but its
// per-second series still counts every answer: the figure's time panels
// come from it, per second and exact, next to the spectra from the
// histograms.
func TestFigureOfAReportReadBack(t *testing.T) {
	srv := kindServer(t)
	run, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Burst, Requests: 120, Seed: 3,
		Actors: []string{"served", "shed", "budget-exhausted"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	if f.StepSeconds != 1 || f.Scale != 1 || len(f.Spectra) == 0 {
		t.Fatalf("step %v, scale %v, %d spectra: want 1 s, 1 and the histograms' spectra", f.StepSeconds, f.Scale, len(f.Spectra))
	}
	var total float64
	for _, s := range f.Answers {
		var sum float64
		for _, p := range s.Points {
			sum += p.Y
		}
		o, _ := ParseOutcome(s.Outcome)
		if sum != float64(r.count(o)) {
			t.Errorf("%s: answers per second sum to %v, want its %d answers", s.Outcome, sum, r.count(o))
		}
		total += sum
	}
	if total != float64(r.Requests) {
		t.Errorf("answers sum to %v, want the %d requests", total, r.Requests)
	}
	if last := f.InFlight[len(f.InFlight)-1]; last.Y != 0 || len(f.InFlight) != len(f.Answers[0].Points) {
		t.Errorf("in flight ends at %v (%d points against %d)", last, len(f.InFlight), len(f.Answers[0].Points))
	}
	if err := f.Check(); err != nil {
		t.Error(err)
	}
}

// The in-flight line's highest point is the peak the report prints, for a
// run and for its report read back: a burst's requests are all in flight
// at once, but the first answers arrive within the same 100 ms step, so
// the count at the end of each step would show far fewer.
func TestFigureInFlightAgreesWithThePeak(t *testing.T) {
	srv := kindServer(t)
	run, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Burst, Requests: 150, Seed: 5,
		Actors: []string{"served", "shed", "budget-exhausted"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Report{"run": run, "read back": back} {
		f, err := NewFigure(r)
		if err != nil {
			t.Fatal(err)
		}
		var top float64
		for _, p := range f.InFlight {
			top = max(top, p.Y)
		}
		if top != float64(r.InFlightPeak) || r.InFlightPeak == 0 {
			t.Errorf("%s: in flight drawn up to %v, the report's peak is %d", name, top, r.InFlightPeak)
		}
		if last := f.InFlight[len(f.InFlight)-1]; last.Y != 0 {
			t.Errorf("%s: in flight ends at %v, want 0 after the run", name, last)
		}
	}
}

// inFlightAt is the in-flight step line's value at x: each point holds
// until the next.
func inFlightAt(f *Figure, x float64) float64 {
	var y float64
	for _, p := range f.InFlight {
		if p.X > x {
			break
		}
		y = p.Y
	}
	return y
}

// The router's samples are drawn when they were scraped, so a sample never
// stands above the probe's own in-flight line: 300 parked read 0.1 s into a
// burst, drawn at the end of its second (where the old figure put it),
// would stand over the 40 still in flight then.
func TestFigureDrawsRouterSamplesWhenScraped(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	r := &Report{Series: []SeriesPoint{
		{Second: 0, InFlight: 40, InFlightPeak: 300, ParkingActive: f64(300), ParkingActiveAt: f64(0.1), Outcomes: map[string]int64{}},
		{Second: 1, InFlight: 0, InFlightPeak: 40, ParkingActive: f64(12), ParkingActiveAt: f64(1.98), Outcomes: map[string]int64{}},
		// A report from before the scrape time was kept.
		{Second: 2, InFlight: 0, InFlightPeak: 0, ParkingActive: f64(0), Outcomes: map[string]int64{}},
	}}
	f, err := NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{X: 0.1, Y: 300}, {X: 1.98, Y: 12}, {X: 3, Y: 0}}
	if !reflect.DeepEqual(f.ParkingActive, want) {
		t.Errorf("router samples %v, want %v", f.ParkingActive, want)
	}
	for _, p := range f.ParkingActive {
		if in := inFlightAt(f, p.X); p.Y > in {
			t.Errorf("router sample %v stands above the probe's %v in flight", p, in)
		}
	}
}

// Merged, a shard's router samples keep their time on the merged clock.
func TestMergedSeriesKeepsScrapeTimes(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	a := &Report{StartedAt: start, Series: []SeriesPoint{{Second: 0, ParkingActive: f64(5), ParkingActiveAt: f64(0.5)}}}
	b := &Report{StartedAt: start.Add(2 * time.Second), Series: []SeriesPoint{{Second: 0, ParkingActive: f64(9), ParkingActiveAt: f64(0.25)}}}
	m := mergeSeries(start, []*Report{a, b})
	if len(m) != 3 || m[0].ParkingActiveAt == nil || *m[0].ParkingActiveAt != 0.5 || m[2].ParkingActiveAt == nil || *m[2].ParkingActiveAt != 2.25 {
		t.Fatalf("merged series %+v: want a's sample at 0.5 s and b's at 2.25 s", m)
	}
}

// Latency over time: each kept sample at the time its answer arrived, by
// outcome; a common outcome is thinned evenly through the run, a rare one
// keeps every point.
func TestLatencyOverTime(t *testing.T) {
	r := &Report{Outcomes: map[string]*OutcomeStats{"served": {Count: 100}, "shed": {Count: 2}}}
	for i := range 100 {
		r.samples = append(r.samples, Sample{Sent: time.Duration(99-i) * 10 * time.Millisecond, Latency: 5 * time.Millisecond, Outcome: Served})
	}
	r.samples = append(r.samples, Sample{Sent: time.Second, Latency: time.Second, Outcome: Shed}, Sample{Latency: 2 * time.Millisecond, Outcome: Shed})
	got := LatencyOverTime(r, 10)
	if len(got) != 2 || got[0].Outcome != "served" || got[1].Outcome != "shed" {
		t.Fatalf("series %+v: want served then shed", got)
	}
	served, shed := got[0].Points, got[1].Points
	if len(served) != 10 || served[0].X != 0.005 || served[9].X < 0.9 || served[0].Y != 0.005 || got[0].Count != 100 {
		t.Errorf("served %v (count %d): want 10 points from 5 ms to past 0.9 s, each 5 ms late", served, got[0].Count)
	}
	if want := []Point{{X: 0.002, Y: 0.002}, {X: 2, Y: 1}}; !reflect.DeepEqual(shed, want) {
		t.Errorf("shed %v, want %v", shed, want)
	}
	if LatencyOverTime(&Report{}, 10) != nil {
		t.Error("a report without samples has latency over time")
	}
}
