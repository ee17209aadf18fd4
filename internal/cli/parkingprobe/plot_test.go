package parkingprobe_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/cli/parkingprobe"
	"github.com/shakenfist/shakectl/internal/cli/root"
	"github.com/shakenfist/shakectl/probe/plot"
	"github.com/shakenfist/shakectl/probe/report"
)

// inProcessPlotter draws with the code shakectl-plot runs, without the
// program: for the tests of everything around the plot.
func inProcessPlotter() (cmdutil.PlotFunc, error) {
	return func(fig *report.Figure, format string, w io.Writer) error { return plot.Write(w, fig, format) }, nil
}

// countingTarget answers every request with 200 and counts them.
func countingTarget(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func withEnv(f *cmdutil.Factory, env map[string]string) {
	f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// buildPlotHelper builds cmd/shakectl-plot, as the release does, into dir.
func buildPlotHelper(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds shakectl-plot")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(dir, parkingprobe.PlotHelper)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/shakenfist/shakectl/cmd/shakectl-plot").CombinedOutput(); err != nil {
		t.Fatalf("go build shakectl-plot: %v\n%s", err, out)
	}
	return bin
}

// --plot runs the real shakectl-plot: the figure crosses as JSON, the
// image comes back and lands in the file.
func TestPlotThroughTheHelperProgram(t *testing.T) {
	bin := buildPlotHelper(t, t.TempDir())
	srv, _ := countingTarget(t)
	for _, name := range []string{"p.png", "p.svg"} {
		f, _, errOut := probeTestFactory(t, context.Background())
		withEnv(f, map[string]string{parkingprobe.PlotHelperEnv: bin})
		file := filepath.Join(t.TempDir(), name)
		if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "20", "--shed-max", "1h", "--plot", file}); code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d, %s", name, code, errOut)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		magic := map[string]string{"p.png": "\x89PNG", "p.svg": "<?xml"}[name]
		if !bytes.HasPrefix(b, []byte(magic)) || !bytes.Contains(b, []byte("served")) && name == "p.svg" {
			t.Errorf("%s: %d bytes starting %q", name, len(b), b[:min(8, len(b))])
		}
	}
}

// A helper that fails passes its own complaint on, and one that exits 0
// but prints nothing drew no plot: both are errors, and neither leaves a
// half-written or empty file where the plot should be.
func TestPlotHelperFailuresLeaveNoFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for the helper")
	}
	srv, _ := countingTarget(t)
	for _, tc := range []struct{ name, script, want string }{
		{"fails", "printf 'partial'; echo 'figure version 9, this build draws version 1' >&2; exit 1", "figure version 9"},
		{"draws nothing", "cat >/dev/null; exit 0", "drew nothing"},
	} {
		dir := t.TempDir()
		fake := filepath.Join(dir, "fake-plot")
		if err := os.WriteFile(fake, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		f, _, errOut := probeTestFactory(t, context.Background())
		withEnv(f, map[string]string{parkingprobe.PlotHelperEnv: fake})
		file := filepath.Join(dir, "p.png")
		code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--plot", file})
		if code != cmdutil.ExitFailure || !strings.Contains(errOut.String(), "writing --plot "+file) || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %s", tc.name, code, errOut)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("%s: a failed plot left %s behind (%v)", tc.name, file, err)
		}
	}
}

// Without shakectl-plot, --plot is refused before any load is sent, with
// where to get the program.
func TestPlotWithoutTheHelperFailsBeforeTheLoad(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	srv, hits := countingTarget(t)
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "go install github.com/shakenfist/shakectl/cmd/shakectl-plot@latest"},
		{map[string]string{parkingprobe.PlotHelperEnv: filepath.Join(t.TempDir(), "missing")}, parkingprobe.PlotHelperEnv + "="},
	} {
		f, _, errOut := probeTestFactory(t, context.Background())
		withEnv(f, tc.env)
		code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--plot", filepath.Join(t.TempDir(), "p.png")})
		if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("env %v: exit %d, stderr %s", tc.env, code, errOut)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent although the plot could not be drawn", n)
	}
}

// A shakectl-plot next to shakectl that cannot be run is passed over when
// the helper is looked for, so --plot is refused before the load rather
// than failing after it.
func TestPlotHelperThatCannotRunIsPassedOver(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	stray := filepath.Join(filepath.Dir(exe), parkingprobe.PlotHelper)
	if err := os.WriteFile(stray, []byte("not a program"), 0o644); err != nil {
		t.Skipf("cannot write next to the test binary: %v", err)
	}
	t.Cleanup(func() { os.Remove(stray) })
	t.Setenv("PATH", t.TempDir())
	srv, hits := countingTarget(t)
	f, _, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h", "--plot", filepath.Join(t.TempDir(), "p.png")})
	if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--plot needs shakectl-plot") || hits.Load() != 0 {
		t.Errorf("exit %d, %d requests sent, stderr %s", code, hits.Load(), errOut)
	}
}

// merge --plot draws a saved or merged report; without the helper it is
// refused before any report is read.
func TestMergeDrawsTheMergedReport(t *testing.T) {
	srv, _ := countingTarget(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "run.json")
	f, _, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "30", "--shed-max", "1h", "--out", report}); code != cmdutil.ExitOK {
		t.Fatalf("run: exit %d, %s", code, errOut)
	}
	plot := filepath.Join(dir, "merged.svg")
	f, _, errOut = probeTestFactory(t, context.Background())
	f.Plotter = inProcessPlotter
	if code := root.Run(f, []string{"parking-probe", "merge", report, "--plot", plot}); code != cmdutil.ExitOK {
		t.Fatalf("merge --plot: exit %d, %s", code, errOut)
	}
	b, err := os.ReadFile(plot)
	if err != nil || !bytes.Contains(b, []byte("answers per 1s")) || !bytes.Contains(b, []byte("served (30)")) {
		t.Errorf("merged plot (%v): %d bytes, want the per-second panels and served (30)", err, len(b))
	}

	t.Setenv("PATH", t.TempDir())
	f, _, errOut = probeTestFactory(t, context.Background())
	code := root.Run(f, []string{"parking-probe", "merge", filepath.Join(dir, "missing.json"), "--plot", filepath.Join(dir, "m.png")})
	if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--plot needs shakectl-plot") {
		t.Errorf("merge --plot without the helper: exit %d, %s", code, errOut)
	}
}
