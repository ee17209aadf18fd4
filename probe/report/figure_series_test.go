package report

import (
	"reflect"
	"testing"
	"time"
)

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
	r := &Report{DurationSeconds: 3, Series: []SeriesPoint{
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
