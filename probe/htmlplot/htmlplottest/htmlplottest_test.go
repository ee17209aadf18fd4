package htmlplottest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/probe/htmlplot"
	"github.com/shakenfist/shakectl/probe/htmlplot/htmlplottest"
	"github.com/shakenfist/shakectl/probe/report"
)

func page(t *testing.T) string {
	t.Helper()
	fig := &report.Figure{Version: report.FigureVersion, Load: "burst of 2", Mode: "burst", Scale: 1, StepSeconds: 1,
		Answers:  []report.OutcomeSeries{{Outcome: "served", Count: 2, Points: []report.Point{{X: 0, Y: 2}, {X: 1, Y: 0}}}},
		InFlight: []report.Point{{X: 0, Y: 2}, {X: 1, Y: 0}}}
	var b bytes.Buffer
	if err := htmlplot.Write(&b, fig, htmlplot.Options{Lot: 4}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A page as htmlplot writes it passes, and gives its data back.
func TestAWrittenPagePasses(t *testing.T) {
	d, err := htmlplottest.Check(page(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.Lot != 4 || d.Figure.Load != "burst of 2" || d.Title != "parking-probe burst of 2" {
		t.Errorf("data %+v: want the lot 4 and the figure's load", d)
	}
}

// The run's own strings are data: a target URL in the load and the title
// is text in the page, not a load, and passes.
func TestURLsInTheRunsStringsAreData(t *testing.T) {
	fig := &report.Figure{Version: report.FigureVersion, Load: "burst of 2 → http://203.0.113.7:8080 src=x", Mode: "burst", Scale: 1, StepSeconds: 1}
	var b bytes.Buffer
	if err := htmlplot.Write(&b, fig, htmlplot.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := htmlplottest.Check(b.String()); err != nil {
		t.Error(err)
	}
}

// Each way a page could load something or lose its data is caught.
func TestBrokenPagesFail(t *testing.T) {
	good := page(t)
	for name, bad := range map[string]string{
		"an injected script": strings.Replace(good, "<h1>", `<script src="x.js"></script><h1>`, 1),
		"a remote image":     strings.Replace(good, "<h1>", `<img src=//203.0.113.7/i.png><h1>`, 1),
		"a changed script":   strings.Replace(good, "<script>", "<script>let x=1;", 1),
		"no policy":          strings.Replace(good, `http-equiv="Content-Security-Policy"`, `name="x"`, 1),
		"data cut short":     strings.Replace(good, `"figure":`, `"figure":</script>`, 1),
	} {
		if _, err := htmlplottest.Check(bad); err == nil {
			t.Errorf("%s: the page passed", name)
		}
	}
}
