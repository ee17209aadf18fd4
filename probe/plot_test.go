package probe_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/probe"
	"github.com/shakenfist/shakectl/probe/plot"
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

// Every mode gives a readable PNG and an SVG with the three panels, the
// outcomes seen and the park budget. PLOT_DIR=dir keeps the PNGs to look at.
func TestWritePlotEveryMode(t *testing.T) {
	for _, mode := range []probe.Mode{probe.Burst, probe.Closed, probe.Open} {
		t.Run(string(mode), func(t *testing.T) {
			r := plotRun(t, mode)
			fig, err := report.NewFigure(r)
			if err != nil {
				t.Fatal(err)
			}
			var pngBuf bytes.Buffer
			if err := plot.Write(&pngBuf, fig, "png"); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(pngBuf.Bytes()))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 800 {
				t.Errorf("image %v too small to read", b)
			}
			if dir := os.Getenv("PLOT_DIR"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, string(mode)+".png"), pngBuf.Bytes(), 0o644)
			}
			var svg bytes.Buffer
			if err := plot.Write(&svg, fig, "svg"); err != nil {
				t.Fatal(err)
			}
			text := svg.String()
			for _, want := range []string{"latency by percentile", "answers over time", "requests in flight", "park budget 1s", "99%", "served"} {
				if !strings.Contains(text, want) {
					t.Errorf("SVG lacks %q", want)
				}
			}
		})
	}
}
