// Command shakectl-plot draws the figure of a parking-probe run as PNG or
// SVG. shakectl runs it for `parking-probe --plot FILE` (and merge's
// --plot), handing it the figure as JSON on stdin and writing what it
// prints to FILE.
//
// It is a program of its own because the plotting library, gonum/plot,
// parses 12 embedded fonts when it is loaded: linked into shakectl, that
// cost every command about 1 ms of start-up, `shakectl version` included
// (issue 15). Release archives and packages ship both programs side by
// side; shakectl looks for this one next to itself, then on PATH.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/shakenfist/shakectl/probe/plot"
	"github.com/shakenfist/shakectl/probe/report"
)

const usage = `shakectl-plot draws a parking-probe figure as PNG or SVG.

Usage:
  shakectl-plot --format png|svg < figure.json > plot.png

shakectl runs it for "shakectl parking-probe --plot FILE.png|.svg" and
"shakectl parking-probe merge --plot FILE"; you do not need to run it
yourself. The figure is JSON that shakectl prepares from
its report (report.Figure, version %d).

Flags:
  --format png|svg   the image format (default png)
  -h, --help         this text

Exit status: 0 drawn, 1 the figure could not be drawn, 2 usage error.
`

// maxFigureBytes bounds what is read from stdin: a figure of the longest
// run the probe keeps a timeline for is a few MiB.
const maxFigureBytes = 256 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shakectl-plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "png", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, usage, report.FigureVersion)
			return 0
		}
		fmt.Fprintf(stderr, "shakectl-plot: %v\nRun 'shakectl-plot --help' for usage.\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shakectl-plot: unexpected argument %q: the figure comes on stdin\nRun 'shakectl-plot --help' for usage.\n", fs.Arg(0))
		return 2
	}
	if *format != "png" && *format != "svg" {
		fmt.Fprintf(stderr, "shakectl-plot: --format %q: want png or svg\n", *format)
		return 2
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// Run by hand with nothing piped in, it would wait for a figure
		// nobody is going to type.
		fmt.Fprint(stderr, "shakectl-plot: the figure comes as JSON on stdin, which is a terminal here;\n"+
			"shakectl runs this program for \"parking-probe --plot FILE\" and \"parking-probe merge --plot FILE\".\n"+
			"Run 'shakectl-plot --help' for usage.\n")
		return 2
	}
	var fig report.Figure
	dec := json.NewDecoder(io.LimitReader(stdin, maxFigureBytes))
	if err := dec.Decode(&fig); err != nil {
		fmt.Fprintf(stderr, "shakectl-plot: reading the figure from stdin: %v\n", err)
		return 1
	}
	w := bufio.NewWriter(stdout)
	if err := plot.Write(w, &fig, *format); err != nil {
		fmt.Fprintf(stderr, "shakectl-plot: %v\n", err)
		return 1
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "shakectl-plot: writing the image: %v\n", err)
		return 1
	}
	return 0
}
