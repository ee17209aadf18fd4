package probe

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

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

// WritePlot draws latency over time, one colour per outcome (each dot a
// request, at its due time), above the in-flight count per second (and the
// router's parking_active when it was scraped). format is "png" or "svg".
// It needs the run's samples (Options.KeepSamples).
func WritePlot(w io.Writer, r *Report, format string) error {
	if len(r.samples) == 0 && len(r.Series) == 0 {
		return errors.New("nothing to plot: the report has no samples")
	}
	lat := plot.New()
	lat.Title.Text = "parking-probe " + describeLoad(r)
	lat.Title.TextStyle.Font.Size = vg.Points(10)
	lat.X.Label.Text = "sent at (s)"
	lat.Y.Label.Text = "latency (s)"
	lat.Y.Scale = plot.LogScale{}
	lat.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	lat.Legend.Top = true
	byOutcome := make([]plotter.XYs, numOutcomes)
	for _, s := range r.samples {
		y := s.Latency.Seconds()
		if y <= 0 {
			y = 1e-6
		}
		byOutcome[s.Outcome] = append(byOutcome[s.Outcome], plotter.XY{X: s.Sent.Seconds(), Y: y})
	}
	for _, o := range AllOutcomes() {
		pts := byOutcome[o]
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = outcomeColour(o)
		sc.GlyphStyle.Radius = vg.Points(1.2)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		lat.Add(sc)
		lat.Legend.Add(fmt.Sprintf("%s (%d)", o, r.count(o)), sc)
	}

	inf := plot.New()
	inf.X.Label.Text = "time (s)"
	inf.Y.Label.Text = "in flight"
	inf.Legend.Top = true
	var peak, active plotter.XYs
	for _, p := range r.Series {
		x := float64(p.Second) + 1
		peak = append(peak, plotter.XY{X: x, Y: float64(p.InFlightPeak)})
		if p.ParkingActive != nil {
			active = append(active, plotter.XY{X: x, Y: *p.ParkingActive})
		}
	}
	if len(peak) > 0 {
		l, err := plotter.NewLine(peak)
		if err != nil {
			return err
		}
		l.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
		l.Width = vg.Points(1.5)
		inf.Add(l)
		inf.Legend.Add("in flight (peak per second)", l)
	}
	if len(active) > 0 {
		l, err := plotter.NewLine(active)
		if err != nil {
			return err
		}
		l.Color = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		inf.Add(l)
		inf.Legend.Add("router parking_active", l)
	}
	// Both panels share the time axis.
	xmax := max(lat.X.Max, inf.X.Max)
	lat.X.Min, inf.X.Min = 0, 0
	lat.X.Max, inf.X.Max = xmax, xmax
	inf.Y.Min = 0

	width, height := 10*vg.Inch, 7*vg.Inch
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	plots := [][]*plot.Plot{{lat}, {inf}}
	var buf bytes.Buffer
	switch format {
	case "png":
		c := vgimg.New(width, height)
		dc := draw.New(c)
		canvases := plot.Align(plots, tiles, dc)
		lat.Draw(canvases[0][0])
		inf.Draw(canvases[1][0])
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return err
		}
	case "svg":
		c := vgsvg.New(width, height)
		dc := draw.New(c)
		canvases := plot.Align(plots, tiles, dc)
		lat.Draw(canvases[0][0])
		inf.Draw(canvases[1][0])
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown plot format %q: want png or svg", format)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
