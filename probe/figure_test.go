package probe

import (
	"github.com/shakenfist/shakectl/probe/report"

	"bytes"
	"context"
	"testing"
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
	r, err := report.ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	f, err := report.NewFigure(r)
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
		o, _ := report.ParseOutcome(s.Outcome)
		if sum != float64(r.Count(o)) {
			t.Errorf("%s: answers per second sum to %v, want its %d answers", s.Outcome, sum, r.Count(o))
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
	back, err := report.ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*report.Report{"run": run, "read back": back} {
		f, err := report.NewFigure(r)
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
