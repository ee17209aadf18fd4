package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"context"
	"testing"
)

// A run with more requests than KeepSamples plots exact counts from the
// run's own timeline: each outcome's answers over time sum to its count,
// the in-flight line ends at zero, and the figure's scale is 1, so the axis
// does not say the counts are estimated from samples.
func TestPlotCountsExactBeyondKeptSamples(t *testing.T) {
	srv := kindServer(t)
	r, err := Run(context.Background(), Options{
		Target: srv.URL, Mode: Burst, Requests: 201, Seed: 7,
		Actors: []string{"served", "shed", "budget-exhausted"}, KeepSamples: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(r.Samples())); n >= r.Requests {
		t.Fatalf("%d samples kept of %d requests: the run must outgrow KeepSamples", n, r.Requests)
	}
	d, err := report.NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, s := range d.Answers {
		var sum float64
		for _, p := range s.Points {
			sum += p.Y
		}
		o, _ := report.ParseOutcome(s.Outcome)
		if want := float64(r.Count(o)); sum != want || s.Count != r.Count(o) {
			t.Errorf("%s: answers over time sum to %v (count %d), want the %v answers", o, sum, s.Count, want)
		}
		total += sum
	}
	if total != float64(r.Requests) {
		t.Errorf("answers over time sum to %v, want %d requests", total, r.Requests)
	}
	if last := d.InFlight[len(d.InFlight)-1].Y; last != 0 {
		t.Errorf("in flight at the end = %v, want 0", last)
	}
	if d.Scale != 1 {
		t.Errorf("scale %v: every answer was counted, none estimated", d.Scale)
	}
}
