package parkingprobe

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/probe/htmlplot"
	"github.com/shakenfist/shakectl/probe/report"
)

// plotExt is the one kind of --plot file: a self-contained HTML page, as
// `vegeta plot` writes (probe/htmlplot).
const plotExt = ".html"

// latencyPointsPerOutcome bounds the latency-over-time panel: one point a
// kept sample, thinned evenly to this many per outcome, so a page of a
// long open run stays a few MiB and draws at once.
const latencyPointsPerOutcome = 20_000

// checkPlotFile checks a --plot FILE before any work (before a run sends
// a request, before merge reads a report): a .html name in a directory
// that exists. "" asks for no plot.
func checkPlotFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if !strings.EqualFold(filepath.Ext(path), plotExt) {
		return cmdutil.UsageErrorf("%s %q: the plot is an HTML page, want a file name ending in %s", flag, path, plotExt)
	}
	return checkWritableDir(flag, path)
}

// writePlot writes r's page to path by internal/outfile's rule (atomically
// for a file, so a failed plot leaves no half-written page; in place for a
// FIFO; - for stdout), saying so on note.
func writePlot(ctx context.Context, path string, r *report.Report, stdout, note io.Writer) error {
	p, err := checkOutput("--plot", path)
	if err != nil {
		return err
	}
	fig, err := report.NewFigure(r)
	if err != nil {
		return fmt.Errorf("writing --plot %s: %w", path, err)
	}
	opts := htmlplot.Options{Lot: parkingLot(r), Latency: report.LatencyOverTime(r, latencyPointsPerOutcome)}
	return p.Write(ctx, stdout, note, func(w io.Writer) error { return htmlplot.Write(w, fig, opts) })
}

// parkingLot is the router's lot as its statusz gave it (max_parked), read
// before the run, else after it; 0 when not read.
func parkingLot(r *report.Report) float64 {
	if r.Statusz == nil {
		return 0
	}
	for _, p := range []*report.StatuszParking{r.Statusz.Before, r.Statusz.After} {
		if p != nil && p.MaxParked != nil {
			return *p.MaxParked
		}
	}
	return 0
}
