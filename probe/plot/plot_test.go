package plot_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/probe/plot"
	"github.com/shakenfist/shakectl/probe/report"
)

// figure is a small burst's figure, written out by hand as shakectl would
// send it to shakectl-plot.
func figure() *report.Figure {
	line := func(ys ...float64) []report.Point {
		pts := make([]report.Point, len(ys))
		for i, y := range ys {
			pts[i] = report.Point{X: float64(i) / 10, Y: y}
		}
		return pts
	}
	return &report.Figure{
		Version: report.FigureVersion, Load: "burst of 75 → http://router.test", Mode: "burst",
		BudgetSeconds: 2, Scale: 1, StepSeconds: 0.1,
		Spectra: []report.OutcomeSeries{
			{Outcome: "served", Count: 50, Points: []report.Point{{X: 1, Y: 0.1}, {X: 10, Y: 0.2}, {X: 100, Y: 0.3}}},
			{Outcome: "budget_exhausted", Count: 5, Points: []report.Point{{X: 1, Y: 2}, {X: 10, Y: 2.01}}},
		},
		Answers: []report.OutcomeSeries{
			{Outcome: "served", Count: 50, Points: line(0, 20, 30, 0)},
			{Outcome: "budget_exhausted", Count: 5, Points: line(0, 0, 5, 0)},
		},
		InFlight:      line(55, 35, 0, 0),
		ParkingActive: []report.Point{{X: 1, Y: 12}},
	}
}

func draw(t *testing.T, f *report.Figure, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := plot.Write(&buf, f, format); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.String()
}

// The panels carry what a reader needs: each outcome with its count, the
// budget on both axes of a burst, the router's gauge and the step.
func TestWriteDrawsEveryPart(t *testing.T) {
	if png := draw(t, figure(), "png"); !strings.HasPrefix(png, "\x89PNG") || len(png) < 2000 {
		t.Errorf("png: %d bytes starting %q", len(png), png[:min(8, len(png))])
	}
	svg := draw(t, figure(), "svg")
	for _, want := range []string{"<?xml", "burst of 75", "latency by percentile", "served (50)", "budget_exhausted (5)",
		"park budget 2s", "park budget 2s after the burst", "answers per 100ms", "router parking_active", "in flight (probe, per 100ms)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg, "estimated") {
		t.Error("scale 1 (every answer counted) but the axis says estimated")
	}
	f := figure()
	f.Scale = 2.5
	if svg := draw(t, f, "svg"); !strings.Contains(svg, "estimated, 1 sample = 2.5 requests") {
		t.Error("scale 2.5 without the estimate on the answers axis")
	}
	f = figure()
	f.Mode = "closed"
	if svg := draw(t, f, "svg"); strings.Contains(svg, "after the burst") {
		t.Error("a closed run has the burst's budget line on its time axis")
	}
}

// A figure that is not this build's, or names an outcome it does not know,
// is refused with a reason instead of drawn wrong.
func TestWriteRefusesAForeignFigure(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*report.Figure)
		format string
		want   string
	}{
		"newer version":   {func(f *report.Figure) { f.Version = report.FigureVersion + 1 }, "png", "same release"},
		"unknown outcome": {func(f *report.Figure) { f.Answers[0].Outcome = "teleported" }, "svg", `unknown outcome "teleported"`},
		"no step":         {func(f *report.Figure) { f.StepSeconds = 0 }, "svg", "no time step"},
		"format":          {func(*report.Figure) {}, "jpg", `unknown plot format "jpg"`},
	} {
		f := figure()
		tc.change(f)
		var buf bytes.Buffer
		err := plot.Write(&buf, f, tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written before the refusal", name, buf.Len())
		}
	}
}
