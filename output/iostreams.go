// Package output renders data and errors for people and for programs: the
// table/simple/json/yaml printers, and the one-time decision about whether
// stdout and stderr are terminals and whether colour is wanted.
package output

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// IOStreams carries the three standard streams and the decisions derived from
// them. The decisions are taken once, at construction, so every printer in a
// run agrees on them (the gh pattern).
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	colour    bool
	width     int
	table     TableOptions

	// notifier is the one writer of stderr (Notifier).
	notifyOnce sync.Once
	notifier   *Notifier
}

// Env reads an environment variable; tests pass a map-backed one.
type Env func(string) (string, bool)

// System returns streams bound to the process's stdin, stdout and stderr.
func System(env Env) *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
	s.colour = decideColour(s.stdoutTTY, env)
	return s
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// decideColour follows the de-facto standards: NO_COLOR (any value) turns
// colour off, CLICOLOR_FORCE (non-zero) turns it on even when piped, and
// otherwise colour goes to terminals only.
func decideColour(tty bool, env Env) bool {
	if env != nil {
		if _, ok := env("NO_COLOR"); ok {
			return false
		}
		if v, ok := env("CLICOLOR_FORCE"); ok && v != "" && v != "0" {
			return true
		}
	}
	return tty
}

// Test returns streams backed by buffers, as if not attached to a terminal.
func Test() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// SetTTY pretends (in tests) that stdout and stderr are or are not terminals.
func (s *IOStreams) SetTTY(stdout, stderr bool) {
	s.stdoutTTY, s.stderrTTY = stdout, stderr
}

// SetStdinTTY pretends (in tests) that stdin is or is not a terminal.
func (s *IOStreams) SetStdinTTY(on bool) { s.stdinTTY = on }

// IsStdinTTY reports whether stdin is a terminal: a person who can answer
// a confirmation question, and who must not be asked for a secret there
// without being told what is read.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// SetColour forces the colour decision; --no-color calls it with false.
func (s *IOStreams) SetColour(on bool) { s.colour = on }

// IsStdoutTTY reports whether stdout is a terminal (tables and progress lines
// are for people; pipes get plain rows).
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// ColourEnabled reports whether escape sequences may be written.
func (s *IOStreams) ColourEnabled() bool { return s.colour }

// Child is a copy of the streams for a run inside this one (the demo's
// commands): the same streams and decisions, and a notifier of its own,
// which writes as the child run's configuration says.
func (s *IOStreams) Child() *IOStreams {
	return &IOStreams{In: s.In, Out: s.Out, ErrOut: s.ErrOut,
		stdinTTY: s.stdinTTY, stdoutTTY: s.stdoutTTY, stderrTTY: s.stderrTTY,
		colour: s.colour, width: s.width, table: s.table}
}

// SerialiseErrOut makes every write to ErrOut take one lock, so lines
// written from another goroutine (a "waiting for an answer" notice) never
// interleave with the command's own; Run calls it once before any command
// starts.
func (s *IOStreams) SerialiseErrOut() {
	if _, done := s.ErrOut.(*syncbuf.Writer); !done {
		s.ErrOut = syncbuf.NewWriter(s.ErrOut)
	}
}
