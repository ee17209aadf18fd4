package htmlplot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/probe/report"
)

// chromium finds Debian's chromium. Outside CI a machine without it skips
// the browser tests; in CI (CI=true, where .ci/run installs it) its
// absence fails them, so a green CI always means the page was drawn.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (Debian: apt-get install -y chromium): the page is not opened in a browser")
	return ""
}

// startChromium starts headless chromium on page with extra arguments
// (such as --dump-dom), with a fresh profile and nothing that calls out on
// its own (updates, sync, QUIC); the returned function waits for it and
// gives its standard output. Chromium spends most of its time starting up
// and waiting on its own processes, so a test opening several pages
// starts them all before it waits for any.
func startChromium(t *testing.T, bin, page string, extra ...string) func() ([]byte, error) {
	t.Helper()
	// The bound only ends a browser that hangs: five at once on a busy
	// 2-core machine take tens of seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1400,1250",
	}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	var stdout bytes.Buffer
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("chromium: %v", err)
	}
	wait := sync.OnceValues(func() ([]byte, error) {
		defer cancel()
		if err := cmd.Wait(); err != nil {
			return nil, fmt.Errorf("chromium: %v\n%s", err, stderr.String())
		}
		return stdout.Bytes(), nil
	})
	// A test that ends before it waited leaves no browser behind.
	t.Cleanup(func() { cancel(); wait() })
	return wait
}

// drawn is what the page records on <html data-drawn>: per panel, each
// series drawn and the points it had in view.
type drawn struct {
	Panels map[string]map[string]struct {
		Label  string `json:"label"`
		Points int    `json:"points"`
	} `json:"panels"`
	Violations []string `json:"violations"`
	Errors     []string `json:"errors"`
	Complete   bool     `json:"complete"`
}

// distinctX counts a line's points at distinct x: what one series of
// uPlot's aligned columns holds (the spectrum closes with two points at
// its last x, and the page keeps the later, its maximum).
func distinctX(pts []report.Point) int {
	seen := map[float64]bool{}
	for _, p := range pts {
		seen[p.X] = true
	}
	return len(seen)
}

// wantDrawn is, per panel, each series the figure asks for and its points:
// the three panels of the PNG plot, line for line.
func wantDrawn(fig *report.Figure, lot float64, latency []report.OutcomeSeries) map[string]map[string]int {
	want := map[string]map[string]int{}
	add := func(panel, key string, n int) {
		if n == 0 {
			return
		}
		if want[panel] == nil {
			want[panel] = map[string]int{}
		}
		want[panel][key] = n
	}
	for _, s := range fig.Spectra {
		add("latency", "latency/"+s.Outcome, distinctX(s.Points))
	}
	if fig.BudgetSeconds > 0 && len(want["latency"]) > 0 {
		add("latency", "budget", 2)
	}
	for _, s := range latency {
		add("latency-time", "latency-time/"+s.Outcome, distinctX(s.Points))
	}
	if fig.BudgetSeconds > 0 && len(want["latency-time"]) > 0 {
		add("latency-time", "latency-time/budget", 2)
	}
	for _, s := range fig.Answers {
		add("answers", "answers/"+s.Outcome, distinctX(s.Points))
	}
	add("flight", "in_flight", distinctX(fig.InFlight))
	add("flight", "parking_active", distinctX(fig.ParkingActive))
	if lot > 0 && len(want["flight"]) > 0 {
		add("flight", "lot", 2)
	}
	return want
}

// The page opened in headless Chromium draws every series of every panel
// with all its points, for a burst, a closed run, an open run, a merged
// report of four shards and a run's figure (latency over time too) full
// of hostile strings; and nothing
// is fetched: a loopback server named in the hostile strings is never
// asked, the page records no policy violation and no script error, and
// the DOM Chromium ends with has no element a string injected.
func TestBrowserDrawsEverySeries(t *testing.T) {
	bin := chromium(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the page fetched %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	u := srv.URL
	bait := "</script><script src=" + u + "/x.js></script><img src=" + u + "/i.png>" +
		"<link rel=stylesheet href=" + u + "/s.css><style>@import '" + u + "/i.css'</style><iframe src=" + u + "/f></iframe>"

	type page struct {
		fig     *report.Figure
		lot     float64
		latency []report.OutcomeSeries
	}
	pages := map[string]page{}
	for _, name := range []string{"burst", "closed", "open", "merged"} {
		fig, lot := reportFigure(t, name)
		pages[name] = page{fig, lot, nil}
	}
	// A run's own figure has latency over time too (from its samples).
	pages["hostile"] = page{figure("burst " + bait), 4, []report.OutcomeSeries{
		{Outcome: "served", Count: 3, Points: []report.Point{{X: 0.01, Y: 0.01}, {X: 0.5, Y: 0.5}, {X: 0.6, Y: 0.6}}},
		{Outcome: "shed", Count: 2, Points: []report.Point{{X: 0.002, Y: 0.002}, {X: 0.003, Y: 0.003}}},
	}}

	dir := t.TempDir()
	dumps := map[string]func() ([]byte, error){}
	for name, p := range pages {
		path := filepath.Join(dir, name+".html")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, p.fig, Options{Title: "plot " + bait, Lot: p.lot, Latency: p.latency}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		dumps[name] = startChromium(t, bin, path, "--dump-dom")
	}
	for name, p := range pages {
		t.Run(name, func(t *testing.T) {
			out, err := dumps[name]()
			if err != nil {
				t.Fatal(err)
			}
			dom := string(out)
			// The root element's attribute: the first tag after the doctype.
			m := regexp.MustCompile(`^\s*(?:<!DOCTYPE html>)?\s*<html[^>]*\sdata-drawn="([^"]*)"`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("the page recorded nothing drawn (did its script run?); DOM starts %.300q", dom)
			}
			var got drawn
			if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
				t.Fatal(err)
			}
			if !got.Complete || len(got.Errors) > 0 || len(got.Violations) > 0 {
				t.Errorf("complete %v, script errors %q, policy violations %q", got.Complete, got.Errors, got.Violations)
			}
			want := wantDrawn(p.fig, p.lot, p.latency)
			if n := 3 + min(len(p.latency), 1); len(want) != n {
				t.Errorf("the figure has %d panels' data, want all %d: %v", len(want), n, want)
			}
			var lines []string
			for panel, series := range want {
				for key, n := range series {
					g, ok := got.Panels[panel][key]
					if !ok || g.Points != n {
						t.Errorf("panel %s, series %s: drawn %v with %d points, want %d", panel, key, ok, g.Points, n)
					}
					lines = append(lines, fmt.Sprintf("%s/%s=%d", panel, key, n))
				}
				for key := range got.Panels[panel] {
					if _, ok := series[key]; !ok {
						t.Errorf("panel %s drew %s, which the figure does not have", panel, key)
					}
				}
			}
			for panel := range got.Panels {
				if _, ok := want[panel]; !ok {
					t.Errorf("the page drew a panel %s the figure has no data for", panel)
				}
			}
			sort.Strings(lines)
			t.Logf("drawn: %s", strings.Join(lines, " "))
			lower := strings.ToLower(dom)
			if el := regexp.MustCompile(`<(img|iframe|link|style)\b`).FindAllString(lower, -1); len(el) != 2 || el[0] != "<style" || el[1] != "<style" {
				t.Errorf("the DOM has the elements %q, want only the page's 2 <style>: a hostile string became an element", el)
			}
			if n := strings.Count(lower, "<script"); n != 3 {
				t.Errorf("the DOM has %d script elements, want the page's 3", n)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the pages made %d requests to the loopback server", n)
	}
}
