package probe

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A run with more requests than KeepSamples plots exact counts from the
// run's own timeline: each outcome's answers over time sum to its count,
// the in-flight line ends at zero, and the axis no longer says the counts
// are estimated from samples.
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
	d, err := preparePlot(r)
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for o, pts := range d.answers {
		var sum float64
		for _, p := range pts {
			sum += p.Y
		}
		if want := float64(r.count(o)); sum != want {
			t.Errorf("%s: answers over time sum to %v, want the %v answers", o, sum, want)
		}
		total += sum
	}
	if total != float64(r.Requests) {
		t.Errorf("answers over time sum to %v, want %d requests", total, r.Requests)
	}
	if last := d.inFlight[len(d.inFlight)-1].Y; last != 0 {
		t.Errorf("in flight at the end = %v, want 0", last)
	}
	var svg bytes.Buffer
	if err := WritePlot(&svg, r, "svg"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg.String(), "estimated") {
		t.Error("the answers axis says estimated, though every answer was counted")
	}
}
