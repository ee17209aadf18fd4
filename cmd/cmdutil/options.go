package cmdutil

import (
	"slices"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/output"
)

// The typed values of the settings that are more than a string: each has
// its parser (its Option's Parse: the flag, the environment and the config
// file use it), names its values for completion, and says what it means,
// so no command compares a setting's text.

// AsyncMode is --async, as sf-client has it: how long a command waits for
// slow operations.
type AsyncMode string

const (
	// AsyncContinue does not wait (budget 0).
	AsyncContinue AsyncMode = "continue"
	// AsyncPause waits up to 60s; running out of that budget is no error.
	AsyncPause AsyncMode = "pause"
	// AsyncBlock waits up to 1h.
	AsyncBlock AsyncMode = "block"
)

// AsyncModes are the values --async accepts, in the order help shows them.
var AsyncModes = []AsyncMode{AsyncContinue, AsyncPause, AsyncBlock}

var asyncHelp = map[string]string{
	string(AsyncContinue): "do not wait (budget 0)",
	string(AsyncPause):    "wait up to 60s",
	string(AsyncBlock):    "wait up to 1h",
}

// ParseAsyncMode reads an async mode, case-insensitively.
func ParseAsyncMode(s string) (AsyncMode, error) {
	m := AsyncMode(strings.ToLower(s))
	if !slices.Contains(AsyncModes, m) {
		return "", UsageErrorf("invalid async mode %q: want one of %s", string(m), joinValues(AsyncModes))
	}
	return m, nil
}

// Budget is how long a call may wait in mode m when no --timeout is given:
// it bounds --retry-transient-capacity's sleeping and the waits.
func (m AsyncMode) Budget() time.Duration {
	switch m {
	case AsyncBlock:
		return time.Hour
	case AsyncContinue:
		return 0
	}
	return 60 * time.Second
}

// Waits says whether a command waits at all for what it started.
func (m AsyncMode) Waits() bool { return m != AsyncContinue }

// OnTimeout is what a wait does when it runs out in mode m: --async
// pause's promise is that running out of its budget is no error.
func (m AsyncMode) OnTimeout() OnTimeout {
	if m == AsyncPause {
		return TimeoutForgiven
	}
	return TimeoutFails
}

// OnTimeout says what a wait that runs out of the async budget does
// (Session.Forgives says when the forgiving holds).
type OnTimeout int

const (
	// TimeoutFails: running out is a *WaitTimeoutError (exit 124).
	TimeoutFails OnTimeout = iota
	// TimeoutForgiven: running out of the async budget ends the wait
	// without an error, what was waited for as it is; an explicit
	// --timeout is never forgiven.
	TimeoutForgiven
)

// String is the mode as --async takes it.
func (m AsyncMode) String() string { return string(m) }

// Output is -o: a format, or columns=NAME,STATE,… (hcloud's: a table of
// those columns, the names as typed for the error that names one).
type Output struct {
	Format  output.Format
	Columns []string
}

var outputHelp = map[string]string{
	string(output.FormatTable):  "aligned columns for people",
	string(output.FormatSimple): "plain tab-separated rows for scripts",
	string(output.FormatJSON):   "the API's JSON, nothing else on stdout",
	string(output.FormatYAML):   "the API's objects as YAML",
}

// ParseOutput reads -o, case-insensitively (column names as typed).
func ParseOutput(s string) (Output, error) {
	typed := strings.TrimSpace(s)
	o := Output{Format: output.Format(strings.ToLower(typed))}
	if _, ok := strings.CutPrefix(string(o.Format), "columns="); ok {
		for _, col := range strings.Split(typed[len("columns="):], ",") {
			if col = strings.TrimSpace(col); col != "" {
				o.Columns = append(o.Columns, col)
			}
		}
		if len(o.Columns) == 0 {
			return Output{}, UsageErrorf("-o columns= needs column names, e.g. columns=NAME,STATE")
		}
		o.Format = output.FormatTable
	}
	if !slices.Contains(output.Formats, o.Format) {
		return Output{}, UsageErrorf("invalid output format %q: want one of %s or columns=NAME,…", string(o.Format), joinValues(output.Formats))
	}
	return o, nil
}

// String is -o as Parse reads it.
func (o Output) String() string {
	if len(o.Columns) > 0 {
		return "columns=" + strings.Join(o.Columns, ",")
	}
	return string(o.Format)
}
func joinValues[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
