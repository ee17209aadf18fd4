// Package plot draws a parking-probe figure (report.Figure) as PNG or SVG
// with gonum/plot. Only shakectl-plot links it: gonum/plot's root package
// parses 12 embedded fonts in init, which would cost every shakectl
// command's start-up about 1 ms (issue 15).
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/shakenfist/shakectl/probe/report"
)

// outcomeColour gives each outcome its own colour, the same in every plot.
func outcomeColour(name string) color.Color {
	o, _ := report.ParseOutcome(name)
	switch o {
	case report.Served:
		return color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	case report.Shed:
		return color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	case report.BudgetExhausted:
		return color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	case report.EnvoyOverflow:
		return color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
	case report.TransportError:
		return color.RGBA{R: 0x11, G: 0x11, B: 0x11, A: 0xff}
	case report.ClientTimeout:
		return color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}
	}
	return plotutil.Color(int(o))
}

// Write draws three panels sharing one legend column on the right, so no
// legend covers data: each outcome's latency percentile spectrum (HDR
// style: the x axis is 1/(1-p) on a log scale, so the tail gets room) with
// the park budget as a horizontal line; the answers per step of each
// outcome over the run (a burst draining shows as it happens); and the
// requests in flight per step, with the router's parking_active when it
// was scraped. In burst mode the budget also marks the time axis, where
// the burst's parks run out. format is "png" or "svg".
func Write(w io.Writer, f *report.Figure, format string) error {
	if err := f.Check(); err != nil {
		return err
	}
	spec, err := spectrumPlot(f)
	if err != nil {
		return err
	}
	ans, inf, err := timePlots(f)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(110))
		drawPanels(draw.New(c), spec, ans, inf)
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return err
		}
	case "svg":
		c := vgsvg.New(plotWidth, plotHeight)
		drawPanels(draw.New(c), spec, ans, inf)
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown plot format %q: want png or svg", format)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

const (
	plotWidth, plotHeight = 11 * vg.Inch, 11 * vg.Inch
	legendWidth           = 2.6 * vg.Inch
)

func xys(pts []report.Point) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}

// percentileTicks labels the 1/(1-p) axis in percentiles.
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []gplot.Tick {
	labels := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"}
	var ts []gplot.Tick
	for i, l := range labels {
		x := math.Pow(10, float64(i))
		if x >= lo && x <= hi*1.0001 {
			ts = append(ts, gplot.Tick{Value: x, Label: l})
		}
		if half := 2 * x; i == 0 && half >= lo && half <= hi {
			ts = append(ts, gplot.Tick{Value: half, Label: "50%"})
		}
	}
	return ts
}

func newPanel(title, x, y string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

func spectrumPlot(f *report.Figure) (*gplot.Plot, error) {
	p := newPanel("parking-probe "+f.Load+": latency by percentile", "percentile", "latency (s)")
	p.X.Scale = gplot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	xmax := 10.0
	for _, s := range f.Spectra {
		if len(s.Points) == 0 {
			continue
		}
		xmax = math.Max(xmax, s.Points[len(s.Points)-1].X)
		l, err := plotter.NewLine(xys(s.Points))
		if err != nil {
			return nil, err
		}
		l.Color = outcomeColour(s.Outcome)
		l.Width = vg.Points(1.8)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d)", s.Outcome, s.Count), l)
	}
	p.X.Min, p.X.Max = 1, xmax
	p.Y.Min = 0
	if b := f.BudgetSeconds; b > 0 {
		l, err := budgetLine(plotter.XYs{{X: 1, Y: b}, {X: xmax, Y: b}})
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add(budgetLabel(b), l)
		p.Y.Max = math.Max(p.Y.Max, b*1.1)
	}
	return p, nil
}

func budgetLabel(b float64) string {
	return "park budget " + time.Duration(b*float64(time.Second)).String()
}

func budgetLine(pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	l.Width = vg.Points(1.2)
	l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	return l, nil
}

func timePlots(f *report.Figure) (ans, inf *gplot.Plot, err error) {
	step := f.Step().String()
	per := "answers per " + step
	if f.Scale > 1 {
		per += fmt.Sprintf(" (estimated, 1 sample = %.1f requests)", f.Scale)
	}
	ans = newPanel("answers over time, by outcome", "time since start (s)", per)
	for _, s := range f.Answers {
		if len(s.Points) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys(s.Points))
		if err != nil {
			return nil, nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = outcomeColour(s.Outcome)
		l.Width = vg.Points(1.4)
		ans.Add(l)
		ans.Legend.Add(s.Outcome, l)
	}
	inf = newPanel("requests in flight", "time since start (s)", "in flight")
	if len(f.InFlight) > 0 {
		l, err := plotter.NewLine(xys(f.InFlight))
		if err != nil {
			return nil, nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
		l.Width = vg.Points(1.6)
		inf.Add(l)
		inf.Legend.Add("in flight (probe, per "+step+")", l)
	}
	if len(f.ParkingActive) > 0 {
		// Points as well as the line: a short run has one scrape.
		l, pts, err := plotter.NewLinePoints(xys(f.ParkingActive))
		if err != nil {
			return nil, nil, err
		}
		red := color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
		l.Color, pts.Color = red, red
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2.5)
		inf.Add(l, pts)
		inf.Legend.Add("router parking_active", l, pts)
	}
	// Both time panels share the axis from 0.
	xmax := math.Max(ans.X.Max, inf.X.Max)
	if b := f.BudgetSeconds; b > 0 && f.Mode == report.ModeBurst {
		xmax = math.Max(xmax, b*1.05)
		for _, p := range []*gplot.Plot{ans, inf} {
			ymax := math.Max(p.Y.Max, 1)
			l, err := budgetLine(plotter.XYs{{X: b, Y: 0}, {X: b, Y: ymax}})
			if err != nil {
				return nil, nil, err
			}
			p.Add(l)
			p.Legend.Add(budgetLabel(b)+" after the burst", l)
		}
	}
	for _, p := range []*gplot.Plot{ans, inf} {
		p.X.Min, p.X.Max = 0, xmax
		p.Y.Min = 0
	}
	return ans, inf, nil
}

// drawPanels stacks the panels on the left and draws each one's legend
// beside it, outside the data area.
func drawPanels(dc draw.Canvas, panels ...*gplot.Plot) {
	left := draw.Crop(dc, 0, -legendWidth, 0, 0)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 6 * vg.Millimeter,
		PadTop: 3 * vg.Millimeter, PadBottom: 3 * vg.Millimeter, PadLeft: 3 * vg.Millimeter, PadRight: 3 * vg.Millimeter}
	rows := make([][]*gplot.Plot, len(panels))
	for i, p := range panels {
		rows[i] = []*gplot.Plot{p}
	}
	canvases := gplot.Align(rows, tiles, left)
	for i, p := range panels {
		legend := p.Legend
		p.Legend = gplot.NewLegend()
		c := canvases[i][0]
		p.Draw(c)
		legend.Top, legend.Left = true, true
		legend.YOffs = -8 * vg.Millimeter
		legend.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: left.Max.X + 2*vg.Millimeter, Y: c.Min.Y},
			Max: vg.Point{X: dc.Max.X - 2*vg.Millimeter, Y: c.Max.Y},
		}})
	}
}
