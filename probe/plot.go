package probe

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// outcomeColour gives each outcome its own colour, the same in every plot.
func outcomeColour(o Outcome) color.Color {
	switch o {
	case Served:
		return color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	case Shed:
		return color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	case BudgetExhausted:
		return color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	case EnvoyOverflow:
		return color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
	case TransportError:
		return color.RGBA{R: 0x11, G: 0x11, B: 0x11, A: 0xff}
	case ClientTimeout:
		return color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}
	}
	return plotutil.Color(int(o))
}

// PlotFormat returns "png" or "svg" from a file name, or an error.
func PlotFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	}
	return "", fmt.Errorf("--plot %q: want a .png or .svg file name", path)
}

// WritePlot draws three panels sharing one legend column on the right, so
// no legend covers data: each outcome's latency percentile spectrum (HDR
// style: the x axis is 1/(1-p) on a log scale, so the tail gets room) with
// the park budget as a horizontal line; the answers per 100 ms of each
// outcome over the run (a burst draining shows as it happens); and the
// requests in flight per 100 ms, with the router's parking_active when it
// was scraped. In burst mode the budget also marks the time axis, where
// the burst's parks run out. format is "png" or "svg". The time panels
// need the run's samples (Options.KeepSamples); the spectrum uses the
// report's histograms, so a merged report plots too.
func WritePlot(w io.Writer, r *Report, format string) error {
	d, err := preparePlot(r)
	if err != nil {
		return err
	}
	spec, err := spectrumPlot(r, d)
	if err != nil {
		return err
	}
	ans, inf, err := timePlots(r, d)
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

// plotData is what the panels draw, prepared (and tested) apart from the
// drawing.
type plotData struct {
	// spectra[o] is outcome o's percentile spectrum: X = 1/(1-p), Y =
	// latency in seconds.
	spectra map[Outcome]plotter.XYs
	// answers[o] is outcome o's answers per step; inFlight the requests in
	// flight at the end of each step; X is the step's start in seconds.
	answers  map[Outcome]plotter.XYs
	inFlight plotter.XYs
	// parkingActive is the router's gauge, per second, when scraped.
	parkingActive plotter.XYs
	// budget is the park budget in seconds (0: unknown).
	budget float64
	// scale is how many requests one sample stands for (1: every request
	// was kept).
	scale float64
	step  time.Duration
}

// spectrumMaxX bounds the spectrum's x axis at the 99.999th percentile.
const spectrumMaxX = 1e5

func preparePlot(r *Report) (*plotData, error) {
	d := &plotData{spectra: map[Outcome]plotter.XYs{}, answers: map[Outcome]plotter.XYs{}, budget: r.Load.BudgetSeconds, scale: 1}
	for _, o := range AllOutcomes() {
		st := r.Outcomes[o.String()]
		if st == nil || st.Count == 0 {
			continue
		}
		h := st.lat
		if h == nil && st.HDR != "" {
			var err error
			if h, err = decodeHist(st.HDR); err != nil {
				return nil, fmt.Errorf("outcome %s: %w", o, err)
			}
		}
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		d.spectra[o] = spectrum(h)
	}
	if r.timeline == nil && len(r.samples) == 0 && len(d.spectra) == 0 {
		return nil, errors.New("nothing to plot: the report has no samples")
	}
	// The run's own timeline counts every answer; a report read back
	// from JSON or merged has only its samples to rebuild one from.
	tl, scale := r.timeline, 1.0
	if tl == nil {
		tl, scale = timelineFromSamples(r.samples, r.Requests)
	}
	d.scale = scale
	v := tl.view()
	d.step = v.step
	stepS := v.step.Seconds()
	// Each point starts its step (drawn PostStep); a last point closes
	// the final step.
	v.answers = append(v.answers, [numOutcomes]int64{})
	v.inFlight = append(v.inFlight, 0)
	for i, row := range v.answers {
		x := float64(i) * stepS
		for _, o := range AllOutcomes() {
			if r.count(o) == 0 {
				continue
			}
			d.answers[o] = append(d.answers[o], plotter.XY{X: x, Y: float64(row[o]) * scale})
		}
		d.inFlight = append(d.inFlight, plotter.XY{X: x, Y: float64(v.inFlight[i]) * scale})
	}
	for _, p := range r.Series {
		if p.ParkingActive != nil {
			d.parkingActive = append(d.parkingActive, plotter.XY{X: float64(p.Second) + 1, Y: *p.ParkingActive})
		}
	}
	return d, nil
}

// spectrum samples a histogram's percentiles evenly on a log scale of
// 1/(1-p), up to the point where one request is the whole tail.
func spectrum(h *hdr.Histogram) plotter.XYs {
	n := float64(h.TotalCount())
	// Up to the next power of ten, so the axis ends on a labelled
	// percentile; beyond n the curve is flat at the maximum.
	limit := math.Min(spectrumMaxX, math.Pow(10, math.Ceil(math.Log10(math.Max(n, 10)))))
	var pts plotter.XYs
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/20)
		if x > limit {
			break
		}
		q := 100 * (1 - 1/x)
		pts = append(pts, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(q)) / 1e6})
	}
	return append(pts, plotter.XY{X: limit, Y: float64(h.Max()) / 1e6})
}

// percentileTicks labels the 1/(1-p) axis in percentiles.
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	labels := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"}
	var ts []plot.Tick
	for i, l := range labels {
		x := math.Pow(10, float64(i))
		if x >= lo && x <= hi*1.0001 {
			ts = append(ts, plot.Tick{Value: x, Label: l})
		}
		if half := 2 * x; i == 0 && half >= lo && half <= hi {
			ts = append(ts, plot.Tick{Value: half, Label: "50%"})
		}
	}
	return ts
}

func newPanel(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

func spectrumPlot(r *Report, d *plotData) (*plot.Plot, error) {
	p := newPanel("parking-probe "+describeLoad(r)+": latency by percentile", "percentile", "latency (s)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	xmax := 10.0
	for _, o := range AllOutcomes() {
		pts := d.spectra[o]
		if len(pts) == 0 {
			continue
		}
		xmax = math.Max(xmax, pts[len(pts)-1].X)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = outcomeColour(o)
		l.Width = vg.Points(1.8)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d)", o, r.count(o)), l)
	}
	p.X.Min, p.X.Max = 1, xmax
	p.Y.Min = 0
	if d.budget > 0 {
		l, err := budgetLine(plotter.XYs{{X: 1, Y: d.budget}, {X: xmax, Y: d.budget}})
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add(budgetLabel(d.budget), l)
		p.Y.Max = math.Max(p.Y.Max, d.budget*1.1)
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

func timePlots(r *Report, d *plotData) (ans, inf *plot.Plot, err error) {
	per := "answers per " + d.step.String()
	if d.scale > 1 {
		per += fmt.Sprintf(" (estimated, 1 sample = %.1f requests)", d.scale)
	}
	ans = newPanel("answers over time, by outcome", "time since start (s)", per)
	for _, o := range AllOutcomes() {
		pts := d.answers[o]
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = outcomeColour(o)
		l.Width = vg.Points(1.4)
		ans.Add(l)
		ans.Legend.Add(o.String(), l)
	}
	inf = newPanel("requests in flight", "time since start (s)", "in flight")
	if len(d.inFlight) > 0 {
		l, err := plotter.NewLine(d.inFlight)
		if err != nil {
			return nil, nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
		l.Width = vg.Points(1.6)
		inf.Add(l)
		inf.Legend.Add("in flight (probe, per "+d.step.String()+")", l)
	}
	if len(d.parkingActive) > 0 {
		// Points as well as the line: a short run has one scrape.
		l, pts, err := plotter.NewLinePoints(d.parkingActive)
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
	if d.budget > 0 && r.Mode == string(Burst) {
		xmax = math.Max(xmax, d.budget*1.05)
		for _, p := range []*plot.Plot{ans, inf} {
			ymax := math.Max(p.Y.Max, 1)
			l, err := budgetLine(plotter.XYs{{X: d.budget, Y: 0}, {X: d.budget, Y: ymax}})
			if err != nil {
				return nil, nil, err
			}
			p.Add(l)
			p.Legend.Add(budgetLabel(d.budget)+" after the burst", l)
		}
	}
	for _, p := range []*plot.Plot{ans, inf} {
		p.X.Min, p.X.Max = 0, xmax
		p.Y.Min = 0
	}
	return ans, inf, nil
}

// drawPanels stacks the panels on the left and draws each one's legend
// beside it, outside the data area.
func drawPanels(dc draw.Canvas, panels ...*plot.Plot) {
	left := draw.Crop(dc, 0, -legendWidth, 0, 0)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 6 * vg.Millimeter,
		PadTop: 3 * vg.Millimeter, PadBottom: 3 * vg.Millimeter, PadLeft: 3 * vg.Millimeter, PadRight: 3 * vg.Millimeter}
	rows := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		rows[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(rows, tiles, left)
	for i, p := range panels {
		legend := p.Legend
		p.Legend = plot.NewLegend()
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
