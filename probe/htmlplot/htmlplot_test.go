package htmlplot

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/probe/htmlplot/htmlplottest"
	"github.com/shakenfist/shakectl/probe/report"
)

// hostile is what a target URL, a load description or a title could carry
// to break out of the page's elements: closing tags in any case, a comment
// opener, a script that would fetch from far away, JavaScript's own line
// terminators and an invalid UTF-8 byte.
const hostile = "</script><script src=\"http://203.0.113.7/x.js\">alert(1)</script>" +
	"</SCRIPT ><!-- <script>alert(2)</script> --></style></title><img src=//203.0.113.7/i.png>" +
	"\u2028\u2029 & &amp; \"' \xff"

// figure is a small figure with every panel and line: spectra with the
// budget, answers per step, in flight and the router's parking_active.
func figure(load string) *report.Figure {
	return &report.Figure{
		Version: report.FigureVersion, Load: load, Mode: "burst", BudgetSeconds: 2, Scale: 1, StepSeconds: 0.1,
		Spectra: []report.OutcomeSeries{
			{Outcome: "served", Count: 3, Points: []report.Point{{X: 1, Y: 0.01}, {X: 10, Y: 0.5}, {X: 10, Y: 0.6}}},
			{Outcome: "shed", Count: 2, Points: []report.Point{{X: 1, Y: 0.002}, {X: 10, Y: 0.003}}},
		},
		Answers: []report.OutcomeSeries{
			{Outcome: "served", Count: 3, Points: []report.Point{{X: 0, Y: 1}, {X: 0.1, Y: 2}, {X: 0.2, Y: 0}}},
			{Outcome: "shed", Count: 2, Points: []report.Point{{X: 0, Y: 2}, {X: 0.1, Y: 0}, {X: 0.2, Y: 0}}},
		},
		InFlight:      []report.Point{{X: 0, Y: 5}, {X: 1, Y: 0}},
		ParkingActive: []report.Point{{X: 0.1, Y: 2}, {X: 1.02, Y: 0}},
	}
}

func write(t *testing.T, fig *report.Figure, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, fig, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// pageJSON returns the data the page's script reads, as htmlplottest
// reads it for every writer of a page.
func pageJSON(t *testing.T, page string) *htmlplottest.Page {
	t.Helper()
	d, err := htmlplottest.Data(page)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Hostile strings in the figure and the title stay data: the page's data
// element ends where it was written to end, holds the figure unchanged,
// and the page has only its own three script elements; the title is text.
func TestHostileStringsStayData(t *testing.T) {
	fig := figure(hostile)
	fig.Answers[0].Outcome = "served"
	page := write(t, fig, Options{Title: "title " + hostile, Lot: 8})

	d := pageJSON(t, page)
	if !reflect.DeepEqual(d.Figure.Spectra, fig.Spectra) || !reflect.DeepEqual(d.Figure.ParkingActive, fig.ParkingActive) {
		t.Error("the figure changed on its way into the page")
	}
	// The invalid byte becomes U+FFFD in JSON, as in any JSON report.
	if want := strings.ToValidUTF8(hostile, "\uFFFD"); d.Figure.Load != want || d.Title != "title "+want || d.Lot != 8 {
		t.Errorf("load %q, title %q, lot %v: want the hostile strings back and the lot 8", d.Figure.Load, d.Title, d.Lot)
	}
	lower := strings.ToLower(page)
	if n := strings.Count(lower, "<script"); n != 3 {
		t.Errorf("%d <script elements, want the page's own 3 (data, uPlot, page)", n)
	}
	if n := strings.Count(lower, "</script"); n != 3 {
		t.Errorf("%d </script, want 3", n)
	}
	for _, s := range []string{"<img", "<!--", "</title>"} {
		if n := strings.Count(lower, s); n > strings.Count(pageHTML, s) {
			t.Errorf("%q appears %d times: a hostile string got out", s, n)
		}
	}
	m := regexp.MustCompile(`(?s)<title>(.*?)</title>`).FindStringSubmatch(page)
	if m == nil || strings.ContainsAny(m[1], "<>") || html.UnescapeString(m[1]) != "title "+strings.ToValidUTF8(hostile, "\uFFFD") {
		t.Errorf("the <title> is not the escaped title: %q", m)
	}
}

// The page names no URL and loads nothing: no scheme, no src or href, no
// CSS url() or @import; and its Content-Security-Policy, before any
// script, forbids every load and allows exactly its two inline scripts.
func TestPageIsSelfContained(t *testing.T) {
	page := write(t, figure("burst of 3 → a target"), Options{})
	if err := htmlplottest.CheckSelfContained(page); err != nil {
		t.Error(err)
	}
	// The library's licence travels with it.
	if !strings.Contains(page, "Copyright (c) 2022 Leon Sorokin") || !strings.Contains(page, "uPlot v"+uplotVersion) {
		t.Error("the page does not carry uPlot's licence and version")
	}
}

// A figure that cannot be drawn writes nothing.
func TestWriteRefusesAFigureItCannotDraw(t *testing.T) {
	for name, fig := range map[string]*report.Figure{
		"nil":             nil,
		"another version": {Version: report.FigureVersion + 1, StepSeconds: 1, Scale: 1},
		"no step":         {Version: report.FigureVersion, Scale: 1},
		"unknown outcome": {Version: report.FigureVersion, StepSeconds: 1, Scale: 1, Answers: []report.OutcomeSeries{{Outcome: "</script>"}}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, fig, Options{}); err == nil || buf.Len() != 0 {
			t.Errorf("%s: error %v, %d bytes written; want an error and nothing", name, err, buf.Len())
		}
	}
}

// The title defaults to the run's load, as the PNG plot's first panel had.
func TestDefaultTitle(t *testing.T) {
	page := write(t, figure("burst of 3"), Options{})
	if !strings.Contains(page, "<title>parking-probe burst of 3</title>") {
		t.Error("no default title from the figure's load")
	}
}

// reportFigure reads a report from testdata, recorded from real runs
// against `shakectl sim router --workers 2 --actors 50 --actor-idle 100ms
// --parked-request-max 200 --parked-request-budget 2s`, and makes its
// figure as `parking-probe merge --plot` does; lot is statusz max_parked.
func reportFigure(t *testing.T, name string) (*report.Figure, float64) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	fig, err := report.NewFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	var lot float64
	if r.Statusz != nil && r.Statusz.Before != nil && r.Statusz.Before.MaxParked != nil {
		lot = *r.Statusz.Before.MaxParked
	}
	return fig, lot
}

// Whatever a load description or title holds, the page keeps it as data:
// three script elements, and the data element, cut where a browser ends
// it, gives the strings back.
func FuzzHostileStringsStayData(f *testing.F) {
	for _, s := range []string{hostile, "</script>", "</ScRiPt\t>", "<!--<script>", "]]>", "\u2028", "</style><script>", "\x00<", "&lt;/script&gt;"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, load, title string) {
		page := write(t, figure(load), Options{Title: title})
		if n := strings.Count(strings.ToLower(page), "<script"); n != 3 {
			t.Fatalf("%d <script elements, want 3", n)
		}
		d := pageJSON(t, page)
		if d.Figure.Load != strings.ToValidUTF8(load, "\uFFFD") {
			t.Errorf("load %q came back as %q", load, d.Figure.Load)
		}
		want := strings.ToValidUTF8(title, "\uFFFD")
		if title == "" {
			want = "parking-probe " + strings.ToValidUTF8(load, "\uFFFD")
		}
		if d.Title != want {
			t.Errorf("title %q came back as %q", title, d.Title)
		}
	})
}
