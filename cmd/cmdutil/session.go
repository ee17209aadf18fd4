package cmdutil

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dustin/go-humanize/english"
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// Session is what an API command starts from: the resolved configuration,
// the client, and the context of its requests. Only the kernel makes one
// (Verb): no command opens a session by hand.
type Session struct {
	F      *Factory
	Cfg    *Config
	Client *client.Client
	// Ctx is the context of every request of the command. It is bounded
	// by --timeout, except under --retry-transient-capacity: there the
	// deadline bounds the client's sleeping between attempts, and the
	// request sent after the last sleep keeps its own per-request timeout
	// (shakenfist capacity_refusals.md at 0c24a714: "the request issued
	// after the last sleep is not itself cut short"). The rule is decided
	// here, where the session is made, so no command has to remember it.
	Ctx    context.Context
	cancel context.CancelFunc
}

// newSession resolves the configuration and builds the client. prepare,
// when set, may adjust the configuration first.
func newSession(f *Factory, prepare func(*Config)) (*Session, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	if prepare != nil {
		prepare(cfg)
	}
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := commandContext(f, cfg)
	if cfg.RetryTransientCapacity {
		ctx, cancel = context.WithCancel(f.Context)
	}
	return &Session{F: f, Cfg: cfg, Client: c, Ctx: ctx, cancel: cancel}, nil
}

func (s *Session) close() { s.cancel() }

func (s *Session) PrintList(l output.List) error {
	return output.PrintList(s.F.IOStreams, s.Cfg.Output, l)
}

func (s *Session) PrintDetail(d output.Detail) error {
	return output.PrintDetail(s.F.IOStreams, s.Cfg.Output, d)
}

// Forgives is the one timeout rule: a wait that runs out ends without an
// error only when it is TimeoutForgiven (--async pause) and what ran out was that
// budget, never a --timeout the user gave, which exits 124 whatever
// --async is and whatever is waited for (network delete's cluster
// operation once exited 0 past --timeout).
func (s *Session) Forgives(on OnTimeout) bool { return on == TimeoutForgiven && s.Cfg.Timeout == 0 }

// Progress is a line about a command's own wait, for a person at a
// terminal (the notifier's Progress).
func (s *Session) Progress(format string, a ...any) {
	s.F.IOStreams.Notifier().Progress("progress", fmt.Sprintf(format, a...))
}

// Note prints a line about what the command did on stderr (the
// notifier's Note: a JSON object under -o json, nothing under --quiet).
func (s *Session) Note(event, format string, a ...any) {
	s.F.IOStreams.Notifier().Note(event, fmt.Sprintf(format, a...))
}

// Warn prints a warning on stderr (the notifier's Warn).
func (s *Session) Warn(format string, a ...any) {
	s.F.IOStreams.Notifier().Warn(fmt.Sprintf(format, a...))
}

// RawOf is the server's object for json/yaml output; types without a kept
// Raw (events) are encoded with their server field names.
func RawOf(raw json.RawMessage, v any) json.RawMessage {
	if len(raw) > 0 {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// ArgsCountError is the usage error of a command given the wrong number of
// arguments; want says what it takes ("needs INSTANCE [LENGTH]").
func ArgsCountError(c *cobra.Command, want string, got int) error {
	return UsageErrorf("%s %s (got %d %s)", c.CommandPath(), want, got, english.PluralWord(got, "argument", ""))
}

// WithDeadline bounds ctx by d (none when d is 0); on expiry its cause is a
// *TimeoutError, so the command ends with exit code 124.
func WithDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return withDeadline(ctx, d)
}

// Bytes is a size for people: binary units, one decimal ("1.5 GiB").
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("KMGTPE"[exp]) + "iB"
}
