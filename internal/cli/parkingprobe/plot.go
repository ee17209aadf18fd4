package parkingprobe

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/shakenfist/shakectl/internal/atomicfile"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
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

// writePlot writes r's page to path atomically: a failed plot leaves no
// half-written file where the page should be.
func writePlot(path string, r *report.Report) error {
	fig, err := report.NewFigure(r)
	if err == nil {
		opts := htmlplot.Options{Lot: parkingLot(r), Latency: report.LatencyOverTime(r, latencyPointsPerOutcome)}
		err = atomicfile.Write(path, 0o644, func(w io.Writer) error { return htmlplot.Write(w, fig, opts) })
	}
	if err != nil {
		return fmt.Errorf("writing --plot %s: %w", path, err)
	}
	return nil
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
