package parkingprobe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/probe/htmlplot/htmlplottest"
	"github.com/shakenfist/shakectl/probe/report"
	"github.com/shakenfist/shakectl/sim/router"
)

// countingTarget answers every request with 200 and counts them.
func countingTarget(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		shedLikeARouter(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// shedLikeARouter answers as the atenet router does when its lot is full
// (6210ad86's exact body): a target the probe can tell is a router, which
// a bare "200 hello" is not (issue 33, item 3).
func shedLikeARouter(w http.ResponseWriter, r *http.Request) {
	actor, _, _ := strings.Cut(r.Host, ".")
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "actor %q unavailable: router at capacity", "demo-ns/"+actor)
}

// startSimRouter runs `sim router` on loopback: a pool of 2 that parks
// part of a burst and sheds the rest, with its metrics and statusz.
func startSimRouter(t *testing.T) *router.Server {
	t.Helper()
	cfg := router.DefaultConfig()
	cfg.Listen, cfg.MetricsListen, cfg.StatusListen = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	cfg.Workers = 2
	cfg.Actors = 20
	cfg.ActorIdle = 50 * time.Millisecond
	cfg.ServiceTime = 10 * time.Millisecond
	cfg.ResumeLatency = 20 * time.Millisecond
	cfg.ParkedRequestMax = 10
	cfg.ParkedRequestBudget = 300 * time.Millisecond
	cfg.Seed = 1
	s, err := router.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// readPage reads a --plot file and holds it to htmlplot's checks: it
// loads nothing and its data is a figure that can be drawn.
func readPage(t *testing.T, path string) *htmlplottest.Page {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := htmlplottest.Check(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// answered adds up the answers the page draws.
func answered(d *htmlplottest.Page) (n int64) {
	for _, s := range d.Figure.Answers {
		for _, p := range s.Points {
			n += int64(p.Y)
		}
	}
	return n
}

// --plot run.html writes one page for each load shape, against the
// simulated router: every request is drawn (the answers add up to the
// requests the report counts), with the router's lot from statusz, its
// parking_active from the scrapes, and each outcome's latency over time.
// A merge of the runs' reports draws the merged report, from the
// per-second series the reports carry.
func TestPlotPageForEveryModeAndAMerge(t *testing.T) {
	t.Parallel()
	s := startSimRouter(t)
	dir := t.TempDir()
	var reports []string
	for _, load := range [][]string{
		{"--mode", "burst", "--requests", "40"},
		{"--mode", "closed", "--concurrency", "4", "--duration", "400ms"},
		{"--mode", "open", "--rate", "50", "--duration", "400ms"},
	} {
		mode := load[1]
		t.Run(mode, func(t *testing.T) {
			f, _, errOut := probeTestFactory(t, context.Background())
			page, out := filepath.Join(dir, mode+".html"), filepath.Join(dir, mode+".json")
			args := append([]string{"parking-probe", "--target", s.URL(), "--actors", "20", "--seed", "3",
				"--metrics-url", s.MetricsURL(), "--statusz-url", s.StatusURL(), "--budget", "300ms",
				"--shed-max", "1h", "-o", "json", "--out", out, "--plot", page}, load...)
			// Exit 3 (a check failed) still writes the page: the plot is of
			// the run, whatever its verdict.
			if code := root.Run(f, args); code != cmdutil.ExitOK && code != cmdutil.ExitChecksFailed {
				t.Fatalf("exit %d, %s", code, errOut)
			}
			reports = append(reports, out)
			d := readPage(t, page)
			r := readReportFile(t, out)
			if d.Figure.Mode != mode || answered(d) != r.Requests || r.Requests == 0 {
				t.Errorf("page of mode %q draws %d answers; the %s report counts %d requests", d.Figure.Mode, answered(d), mode, r.Requests)
			}
			if d.Lot != 10 || len(d.Figure.ParkingActive) == 0 || d.Figure.BudgetSeconds != 0.3 {
				t.Errorf("lot %v, %d parking_active points, budget %vs: want statusz's lot 10, the scrapes, the 300ms budget",
					d.Lot, len(d.Figure.ParkingActive), d.Figure.BudgetSeconds)
			}
			var latency int64
			for _, o := range d.Latency {
				latency += int64(len(o.Points))
			}
			if latency != r.Requests {
				t.Errorf("the latency panel has %d points for %d requests", latency, r.Requests)
			}
		})
	}

	// Runs of different modes merge with --allow-mixed; the merged page
	// draws every request of the three.
	f, _, errOut := probeTestFactory(t, context.Background())
	page := filepath.Join(dir, "merged.html")
	args := append([]string{"parking-probe", "merge", "--allow-mixed", "--plot", page, "-o", "json"}, reports...)
	if code := root.Run(f, args); code != cmdutil.ExitOK && code != cmdutil.ExitChecksFailed {
		t.Fatalf("merge: exit %d, %s", code, errOut)
	}
	var want int64
	for _, p := range reports {
		want += readReportFile(t, p).Requests
	}
	if d := readPage(t, page); answered(d) != want || d.Latency != nil {
		t.Errorf("merged page draws %d answers (latency panel %v), want the runs' %d and no latency panel (a merge keeps no samples)", answered(d), d.Latency != nil, want)
	}
}

// A --plot that is not an .html file name is a usage error that says so,
// before any request is sent or any report read; so is one in a directory
// that does not exist.
func TestPlotNotHTMLIsRefusedBeforeTheLoad(t *testing.T) {
	t.Parallel()
	srv, hits := countingTarget(t)
	dir := t.TempDir()
	for _, tc := range []struct{ name, want string }{
		{filepath.Join(dir, "p.png"), "want a file name ending in .html"},
		{filepath.Join(dir, "p.svg"), "want a file name ending in .html"},
		{filepath.Join(dir, "plot"), "want a file name ending in .html"},
		{filepath.Join(dir, "missing", "p.html"), "cannot write --plot"},
	} {
		f, _, errOut := probeTestFactory(t, context.Background())
		code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--plot", tc.name})
		if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("run --plot %s: exit %d, stderr %s", tc.name, code, errOut)
		}
		f, _, errOut = probeTestFactory(t, context.Background())
		// The report does not exist: the plot's name is refused first.
		code = root.Run(f, []string{"parking-probe", "merge", filepath.Join(dir, "none.json"), "--plot", tc.name})
		if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("merge --plot %s: exit %d, stderr %s", tc.name, code, errOut)
		}
		if _, err := os.Stat(tc.name); !os.IsNotExist(err) {
			t.Errorf("%s exists after a refused --plot (%v)", tc.name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent although --plot was refused", n)
	}
	// Upper case is still an HTML page.
	f, _, errOut := probeTestFactory(t, context.Background())
	page := filepath.Join(dir, "P.HTML")
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--plot", page}); code != cmdutil.ExitOK {
		t.Fatalf("--plot P.HTML: exit %d, %s", code, errOut)
	}
	if d := readPage(t, page); answered(d) != 5 {
		t.Errorf("page draws %d answers of 5", answered(d))
	}
}

// readReportFile reads a report the command wrote with --out.
func readReportFile(t *testing.T, path string) *report.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
