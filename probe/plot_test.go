package probe_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/htmlplot"
	"github.com/shakenfist/shakectl/probe/htmlplot/htmlplottest"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// plotRun runs one small load against the simulated router (a pool of 2
// that parks most of a burst) and returns its report with samples kept.
func plotRun(t *testing.T, mode probe.Mode) *report.Report {
	t.Helper()
	var r *report.Report
	synctest.Test(t, func(t *testing.T) {
		cfg := router.DefaultConfig()
		cfg.Workers = 2
		cfg.Actors = 40
		cfg.ActorIdle = 50 * time.Millisecond
		cfg.ServiceTime = 20 * time.Millisecond
		cfg.ParkedRequestMax = 30
		cfg.ExtprocMaxRequests = 64
		cfg.ParkedRequestBudget = time.Second
		s, tr := startMem(t, cfg)
		defer s.Close()
		defer tr.CloseIdleConnections()
		o := probe.Options{
			Target: "http://router.test", Mode: mode, Actors: probe.GeneratedActors(40),
			RoundTripper: tr, ScrapeTransport: tr, MetricsURL: "http://metrics.test/metrics",
			Checks: report.CheckConfig{Budget: time.Second}, KeepSamples: 10_000, Seed: 1,
		}
		switch mode {
		case probe.Burst:
			o.Requests = 60
		case probe.Closed:
			o.Concurrency, o.Duration = 8, 3*time.Second
		case probe.Open:
			o.Rate, o.Duration = 40, 3*time.Second
		}
		var err error
		if r, err = probe.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	})
	return r
}

// Every mode gives a page that loads nothing and carries the three time
// panels' data, the outcomes seen, the park budget and the latency over
// time. PLOT_DIR=dir keeps the pages to look at.
func TestWritePlotEveryMode(t *testing.T) {
	for _, mode := range []probe.Mode{probe.Burst, probe.Closed, probe.Open} {
		t.Run(string(mode), func(t *testing.T) {
			r := plotRun(t, mode)
			fig, err := report.NewFigure(r)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := htmlplot.Write(&buf, fig, htmlplot.Options{Latency: report.LatencyOverTime(r, 0)}); err != nil {
				t.Fatal(err)
			}
			if dir := os.Getenv("PLOT_DIR"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, string(mode)+".html"), buf.Bytes(), 0o644)
			}
			d, err := htmlplottest.Check(buf.String())
			if err != nil {
				t.Fatal(err)
			}
			if d.Figure.BudgetSeconds != 1 || len(d.Figure.InFlight) == 0 || len(d.Figure.ParkingActive) == 0 {
				t.Errorf("budget %v, %d in-flight and %d parking_active points: want the 1s budget and both lines",
					d.Figure.BudgetSeconds, len(d.Figure.InFlight), len(d.Figure.ParkingActive))
			}
			var answered, latency int64
			for _, s := range d.Figure.Answers {
				for _, p := range s.Points {
					answered += int64(p.Y)
				}
			}
			for _, s := range d.Latency {
				latency += int64(len(s.Points))
			}
			if answered != r.Requests || latency != r.Requests || d.Figure.Answers[0].Outcome != "served" {
				t.Errorf("the page's answers add up to %d and its latency panel has %d points, want the %d requests, served first (%v)",
					answered, latency, r.Requests, d.Figure.Answers)
			}
		})
	}
}

// Issue 33, item 6: the plot says what it measured. Its time axis ends
// where the run ended (a 1.6 s run with a 5 s budget drew to 5.25 s), its
// in-flight line has the answers' resolution (it had one point a second
// beside answers per 100 ms), and the router's parking_active is every
// read at the time it was read (four a second; the page showed one).
func TestPlotSaysWhatItMeasured(t *testing.T) {
	r := plotRun(t, probe.Closed)
	f, err := report.NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	if f.EndSeconds != r.DurationSeconds || f.EndSeconds <= 0 {
		t.Errorf("figure ends at %gs, the run at %gs", f.EndSeconds, r.DurationSeconds)
	}
	if f.InFlightStepSeconds != f.StepSeconds || f.StepSeconds != report.TimelineStep.Seconds() {
		t.Errorf("in flight every %gs, answers every %gs: want both %s", f.InFlightStepSeconds, f.StepSeconds, report.TimelineStep)
	}
	if n := len(f.InFlight); n < int(r.DurationSeconds/f.StepSeconds) {
		t.Errorf("%d in-flight points for a %gs run in %gs steps", n, r.DurationSeconds, f.StepSeconds)
	}
	var peak float64
	for _, p := range f.InFlight {
		if p.X > f.EndSeconds {
			t.Errorf("in-flight point at %gs, after the run's end %gs", p.X, f.EndSeconds)
		}
		peak = max(peak, p.Y)
	}
	if peak != float64(r.InFlightPeak) {
		t.Errorf("in-flight line peaks at %g, the report's in_flight_peak is %d", peak, r.InFlightPeak)
	}
	seconds := 0
	for _, p := range r.Series {
		if p.ParkingActive != nil {
			seconds++
		}
	}
	if len(f.ParkingActive) < 3*seconds || seconds == 0 {
		t.Errorf("%d parking_active points over %d seconds with a read: want every read, four a second", len(f.ParkingActive), seconds)
	}
	for i := 1; i < len(f.ParkingActive); i++ {
		if f.ParkingActive[i].X < f.ParkingActive[i-1].X {
			t.Errorf("parking_active reads out of time order at %d", i)
		}
	}
}
