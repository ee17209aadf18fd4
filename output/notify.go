package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/internal/progress"
	"github.com/shakenfist/shakectl/output/termtext"
)

// Notifier is the one writer of stderr: every line shakectl writes there,
// for a person or for a script, is one of its kinds, and a source scan
// (notify_scan_test.go) fails on any other write to stderr in cmd/ and the
// libraries. Its rules are the same for every command:
//
//   - on a terminal or a pipe, plain lines, each sanitised by termtext
//     (a line may quote a server, a path or a client's request);
//   - under -o json, one JSON object a line ({"event": …, "message": …},
//     {"warning": …}, the error object), so a script can parse every line;
//   - under --quiet, nothing but the error (and a prompt, which a person
//     must see to answer, and --debug's lines, asked for by name).
//
// Its kinds: Error (the error renderer), Warn, Note, Event (a note with
// facts for programs), Block (a note of several lines of shakectl's own
// text), Progress (for a person at a terminal), Status (one line redrawn
// in place), Meter (a transfer's progress), Prompt, Lines (a writer whose
// lines are notes: Go's log output, a server's request log, a file's
// "wrote" line), Debug (--debug), Report (a report for people that stdout
// cannot carry) and Relay (another program's own stderr).
//
// The mode (JSON, quiet) is the run's configuration: the command layer
// sets it when the configuration is resolved (SetMode), or gives a way to
// find it (ResolveModeWith) for a run that never resolves one.
type Notifier struct {
	ios *IOStreams

	mu        sync.Mutex // guards mode, set, resolve and resolving
	mode      NotifyMode
	set       bool
	resolve   func() NotifyMode
	resolving bool

	wmu    sync.Mutex // one write at a time; guards status
	status bool       // a Status line is on the screen
}

// NotifyMode is how the notifier writes: JSON is -o json, Quiet --quiet.
type NotifyMode struct {
	JSON  bool
	Quiet bool
}

// Notifier is the streams' one notifier: the only way to stderr.
func (s *IOStreams) Notifier() *Notifier {
	s.notifyOnce.Do(func() { s.notifier = &Notifier{ios: s} })
	return s.notifier
}

// NewNotifier is a notifier that writes to w in mode m, not a terminal: for
// a library's tests and the bench programs, which have no IOStreams.
func NewNotifier(w io.Writer, m NotifyMode) *Notifier {
	n := (&IOStreams{ErrOut: w}).Notifier()
	n.SetMode(m)
	return n
}

// SetMode fixes the mode: the run's resolved configuration.
func (n *Notifier) SetMode(m NotifyMode) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mode, n.set = m, true
}

// ResolveModeWith gives the notifier a way to find its mode the first
// time it writes, unless SetMode has fixed it by then: a command that
// never resolves the configuration (context use) or a run that failed
// before resolving it still writes as -o json and --quiet say. A line
// written while resolve runs (Go's log, from a library it calls) is
// written in the mode before it.
func (n *Notifier) ResolveModeWith(resolve func() NotifyMode) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.resolve, n.set = resolve, false
}

// Mode is the mode the notifier writes in.
func (n *Notifier) Mode() NotifyMode {
	n.mu.Lock()
	if n.set || n.resolve == nil || n.resolving {
		defer n.mu.Unlock()
		return n.mode
	}
	resolve := n.resolve
	n.resolving = true
	n.mu.Unlock()
	m := resolve()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.resolving = false
	if !n.set {
		n.mode, n.set = m, true
	}
	return n.mode
}

// write puts text on stderr in one write, first clearing a Status line
// that is on the screen (the next Status draws it again).
func (n *Notifier) write(text string) {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	n.clearStatusLocked()
	_, _ = io.WriteString(n.ios.ErrOut, text)
}

func (n *Notifier) clearStatusLocked() {
	if n.status {
		_, _ = io.WriteString(n.ios.ErrOut, "\r\x1b[K")
		n.status = false
	}
}

// line is v as one JSON line under -o json, else text sanitised as one
// line; each with its line break.
func (n *Notifier) line(m NotifyMode, text string, v any) string {
	if m.JSON {
		if l := JSONLine(v); v != nil && strings.HasPrefix(l, "{") {
			return l + "\n"
		}
		// No fields, or fields that are not an object: the text alone
		// keeps the line a JSON object.
		return JSONLine(map[string]string{"message": text}) + "\n"
	}
	return termtext.Line(text) + "\n"
}

// Error prints what a failed command tells its user, whatever --quiet
// says: "error: …" with a "hint: …" line when there is a hint, or under
// -o json the report as one JSON object. It is the one place an error is
// printed.
func (n *Notifier) Error(r ErrorReport) {
	if n.Mode().JSON {
		// One line, with ">" left as ">" (json.Marshal would write \u003e,
		// which reads badly in a log and in jq's raw output).
		if line := JSONLine(r); line != "" {
			n.write(line + "\n")
			return
		}
	}
	c := NewColourScheme(n.ios.ColourEnabled())
	// A message or hint may quote the server (a 507's stage, a body).
	text := fmt.Sprintf("%s %s\n", c.Red("error:"), termtext.Line(r.Message))
	if r.Hint != "" {
		text += fmt.Sprintf("%s %s\n", c.Yellow("hint:"), termtext.Line(r.Hint))
	}
	n.write(text)
}

// Warn prints a warning: "warning: …", or {"warning": …} under -o json.
func (n *Notifier) Warn(msg string) {
	m := n.Mode()
	switch {
	case m.Quiet:
	case m.JSON:
		n.write(n.line(m, msg, map[string]string{"warning": msg}))
	default:
		n.write("warning: " + termtext.Line(msg) + "\n")
	}
}

// Note prints a line about what a command did or is doing: the text, or
// {"event": event, "message": msg} under -o json.
func (n *Notifier) Note(event, msg string) {
	if m := n.Mode(); !m.Quiet {
		n.write(n.line(m, msg, map[string]string{"event": event, "message": msg}))
	}
}

// Event is a note with facts for programs: text for people, and under
// -o json fields (a struct or a map whose "event" names it) as the
// object: a retry's wait, the proxy's lines and summary.
func (n *Notifier) Event(text string, fields any) {
	if m := n.Mode(); !m.Quiet {
		n.write(n.line(m, text, fields))
	}
}

// Block is a note of several lines of shakectl's own text (a simulator's
// banner, the commands to run next): the lines as they are, tabs and line
// breaks kept and every other control blanked, or one {"event",
// "message"} object under -o json. Text a server sent goes through Note,
// one line, where a line break cannot forge a line of its own.
func (n *Notifier) Block(event, text string) {
	m := n.Mode()
	switch {
	case m.Quiet:
	case m.JSON:
		n.write(n.line(m, text, map[string]string{"event": event, "message": strings.TrimRight(text, "\n")}))
	default:
		n.write(strings.TrimRight(termtext.Block(text), "\n") + "\n")
	}
}

// Progress is a line about a wait, for a person: only when stderr is a
// terminal (a pipe's reader learns the outcome), as a Note.
func (n *Notifier) Progress(event, msg string) {
	if n.ios.IsStderrTTY() {
		n.Note(event, msg)
	}
}

// Status draws text as the one line redrawn in place at a terminal (the
// probe's live counts, four times a second); only on a terminal, and
// never under -o json, whose reader gets the report. EndStatus clears it;
// any other line clears it first.
func (n *Notifier) Status(text string) {
	if m := n.Mode(); m.Quiet || m.JSON || !n.ios.IsStderrTTY() {
		return
	}
	n.wmu.Lock()
	defer n.wmu.Unlock()
	_, _ = io.WriteString(n.ios.ErrOut, "\r\x1b[K"+termtext.Line(text))
	n.status = true
}

// EndStatus clears a Status line that is on the screen.
func (n *Notifier) EndStatus() {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	n.clearStatusLocked()
}

// Meter starts the progress report of a transfer (internal/progress): a
// bar on a terminal, its JSON lines under -o json, nothing when piped or
// under --quiet.
func (n *Notifier) Meter(op, name string, total, from int64, now func() time.Time) *progress.Meter {
	m := n.Mode()
	return progress.New(stream{n}, progress.Choose(m.Quiet, m.JSON, n.ios.IsStderrTTY()), op, name, total, from, now)
}

// Prompt asks a person a question, whatever --quiet says: "question "
// and the answer on the same line at a terminal; under -o json, one
// {"event": "prompt", "message": question} object and the answer on the
// next line, so that every line stays JSON for a person who pipes stdout
// to jq and answers at the terminal. The caller asks only a person at a
// terminal (stdin and stderr both are), and reads the answer itself.
func (n *Notifier) Prompt(question string) {
	if n.Mode().JSON {
		n.write(JSONLine(map[string]string{"event": "prompt", "message": question}) + "\n")
		return
	}
	n.write(termtext.Line(question) + " ")
}

// PromptDone ends a prompt whose answer the terminal did not echo (a
// secret): the line break the person's Enter did not show, where the
// prompt left the line open.
func (n *Notifier) PromptDone() {
	if !n.Mode().JSON {
		n.write("\n")
	}
}

// Lines is a writer whose every line is a note named event (the text of
// each line, sanitised; under -o json one object a line): for a writer
// that a library or Go's log package fills (http.Server's ErrorLog, the
// standard logger, a simulator's request log, outfile's "wrote" line).
// The lines of one write reach stderr in one write; a last line without
// its line break waits for it.
func (n *Notifier) Lines(event string) io.Writer {
	return &lineWriter{n: n, event: event}
}

// Debug is Lines for --debug's log of requests and answers, which
// --quiet does not silence: it was asked for by name.
func (n *Notifier) Debug() io.Writer {
	return &lineWriter{n: n, event: "debug", loud: true}
}

// Report writes a report for people on stderr, because stdout carries
// the data (parking-probe's text report beside --out -): as write writes
// it (its own colours: the caller decides them for stderr), nothing under
// --quiet. Under -o json a command prints its report as JSON on stdout
// and never calls it; if one did, every line would become a note.
func (n *Notifier) Report(write func(io.Writer) error) error {
	m := n.Mode()
	switch {
	case m.Quiet:
		return nil
	case m.JSON:
		w := n.Lines("report")
		return write(w)
	}
	var b bytes.Buffer
	err := write(&b)
	n.write(b.String())
	return err
}

// Relay is stderr itself, for another program's own stderr that a
// command passes on as it came: wrap's command, a VDI viewer, the
// guest's stderr in instance execute, ping's on the network node. Those
// bytes are that program's, not shakectl's messages: never rewritten,
// and not silenced by --quiet. Under -o json only wrap's command and a
// viewer write there (instance execute and network ping put the guest's
// stderr in the JSON on stdout).
func (n *Notifier) Relay() io.Writer { return stream{n} }

// stream writes to stderr under the notifier's lock.
type stream struct{ n *Notifier }

func (s stream) Write(p []byte) (int, error) {
	s.n.wmu.Lock()
	defer s.n.wmu.Unlock()
	return s.n.ios.ErrOut.Write(p)
}

// lineWriter is Lines and Debug.
type lineWriter struct {
	n     *Notifier
	event string
	loud  bool // not silenced by --quiet

	mu      sync.Mutex
	partial []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.n.Mode()
	if m.Quiet && !w.loud {
		return len(p), nil
	}
	w.partial = append(w.partial, p...)
	i := bytes.LastIndexByte(w.partial, '\n')
	if i < 0 {
		return len(p), nil
	}
	var out strings.Builder
	for _, l := range strings.Split(string(w.partial[:i]), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if m.JSON {
			out.WriteString(w.n.line(m, l, map[string]string{"event": w.event, "message": l}))
			continue
		}
		// Block keeps a tab of a --debug body; the line has no break.
		out.WriteString(termtext.Block(l) + "\n")
	}
	w.partial = append(w.partial[:0], w.partial[i+1:]...)
	w.n.write(out.String())
	return len(p), nil
}
