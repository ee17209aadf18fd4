package parkingprobe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/probe/report"
)

// plotFile is a --plot FILE that a run has checked it can write: its
// format and what draws it.
type plotFile struct {
	path, format string
	draw         cmdutil.PlotFunc
}

// checkPlotFile checks a --plot FILE before any work: a .png or .svg name
// in a directory that exists, and a shakectl-plot to draw it. "" needs no
// plot (nil).
func checkPlotFile(f *cmdutil.Factory, path string) (*plotFile, error) {
	if path == "" {
		return nil, nil
	}
	format, err := report.PlotFormat(path)
	if err != nil {
		return nil, &cmdutil.UsageError{Msg: err.Error()}
	}
	if err := checkWritableDir("--plot", path); err != nil {
		return nil, err
	}
	draw, err := f.Plotter()
	if err != nil {
		return nil, err
	}
	return &plotFile{path: path, format: format, draw: draw}, nil
}

// PlotHelper is the program that draws --plot files. It is not linked into
// shakectl: gonum/plot parses 12 fonts when it is loaded, about 1 ms of
// every command's start-up (issue 15). Release archives and packages ship
// it next to shakectl.
const PlotHelper = "shakectl-plot"

// PlotHelperEnv names a PlotHelper to use instead of the one found.
const PlotHelperEnv = "SHAKECTL_PLOT"

// HelperPlotter finds shakectl-plot and returns a PlotFunc that runs it.
func HelperPlotter(getenv func(string) (string, bool)) (cmdutil.PlotFunc, error) {
	path, err := findPlotHelper(getenv)
	if err != nil {
		return nil, err
	}
	return func(fig *report.Figure, format string, w io.Writer) error {
		in, err := json.Marshal(fig)
		if err != nil {
			return err
		}
		// No context: Ctrl-C stops the load, and the partial run is still
		// drawn. The helper is in the terminal's process group, so a
		// second Ctrl-C stops it too.
		c := exec.Command(path, "--format", format)
		c.Stdin = bytes.NewReader(in)
		out := &countingWriter{w: w}
		c.Stdout = out
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return fmt.Errorf("%s: %s", path, msg)
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		if out.n == 0 {
			// Not a plot, whatever its exit status says: leave no empty file.
			return fmt.Errorf("%s drew nothing (is it shakectl-plot?)", path)
		}
		return nil
	}, nil
}

// countingWriter counts what passes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// findPlotHelper looks for shakectl-plot where a user put it: SHAKECTL_PLOT,
// then next to this shakectl (as the release archives and packages install
// it, and as `go install` of both puts it), then on PATH.
func findPlotHelper(getenv func(string) (string, bool)) (string, error) {
	name := PlotHelper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p, ok := getenv(PlotHelperEnv); ok && p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", cmdutil.UsageErrorf("%s=%s: %s", PlotHelperEnv, p, lookPathReason(err))
		}
		return path, nil
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			// LookPath checks what PATH's search checks (a file, and
			// executable where that is a file mode), so a leftover that
			// cannot run is passed over here, not found after the load.
			if p, err := exec.LookPath(p); err == nil {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(PlotHelper); err == nil {
		return p, nil
	}
	return "", cmdutil.UsageErrorf("--plot needs %s, the program that draws plots, next to shakectl or on PATH "+
		"(release archives and packages include it; or: go install github.com/shakenfist/shakectl/cmd/shakectl-plot@latest)", PlotHelper)
}

func lookPathReason(err error) string {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Err.Error()
	}
	return err.Error()
}
