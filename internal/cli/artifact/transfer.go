package artifact

import (
	"fmt"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/progress"
)

// meter starts the progress report of a transfer on stderr: a bar on a
// terminal, JSON lines with -o json, nothing when piped or --quiet.
func meter(s *cmdutil.Session, op, name string, total, from int64) *progress.Meter {
	mode := progress.Choose(s.Cfg.Quiet, s.Cfg.Output, s.F.IOStreams.IsStderrTTY())
	return progress.New(s.F.IOStreams.ErrOut, mode, op, name, total, from, s.F.Now)
}

// say prints a line for people on stderr, unless --quiet or -o json.
func say(s *cmdutil.Session, format string, a ...any) {
	if s.Cfg.Quiet || s.Cfg.JSONOutput() {
		return
	}
	fmt.Fprintf(s.F.IOStreams.ErrOut, format+"\n", a...)
}
