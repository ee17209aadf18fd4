package output

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/itchyny/gojq"
	"github.com/shakenfist/shakectl/client/poll"
	"github.com/shakenfist/shakectl/internal/fielderr"
	"github.com/shakenfist/shakectl/output/termtext"
	"golang.org/x/term"
)

// TableOptions are the choices about tables and JSON filtering that the
// global flags make once per run (-o table explicitly, --no-headers,
// -o columns=…, --jq). They live on IOStreams so every printer in the run
// follows them without each command passing them on.
type TableOptions struct {
	// Header prints the header even when stdout is not a terminal: the user
	// asked for -o table (or columns=) explicitly, as kubectl and hcloud do.
	Header bool
	// NoHeaders leaves the header out everywhere (--no-headers).
	NoHeaders bool
	// Columns chooses and orders the columns by header, case-insensitive
	// (-o columns=NAME,STATE); nil means all.
	Columns []string
	// JQ filters JSON output (--jq); nil means none.
	JQ *gojq.Code
	// Context ends a --jq evaluation (the run's: Ctrl-C); nil for none.
	Context context.Context
	// JQLimits bound a --jq evaluation; zero fields take the defaults.
	JQLimits JQLimits
}

// SetTableOptions records the run's table choices.
func (s *IOStreams) SetTableOptions(o TableOptions) { s.table = o }

// SetWidth pretends (in tests) that the terminal is w columns wide.
func (s *IOStreams) SetWidth(w int) { s.width = w }

// TerminalWidth is stdout's width when it is a terminal, else 0 (no limit):
// only people's tables are fitted to the screen, never piped output.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	if s.width > 0 {
		return s.width
	}
	if f, ok := s.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
		return 80
	}
	// A test's buffer: no limit unless SetWidth says otherwise.
	return 0
}

// ColumnError is -o columns= naming a column the list does not have; the
// command reports it as a usage error.
type ColumnError struct {
	Name  string
	Valid []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("unknown column %q for -o columns=: valid columns are %s", e.Name, strings.Join(e.Valid, ","))
}

// ParseJQ compiles a jq expression (TableOptions.JQ, shakectl's --jq);
// its error, which names the option as {JQ} (internal/fielderr), is the
// user's to fix.
func ParseJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fielderr.Errorf("invalid {JQ} expression %q: %s", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fielderr.Errorf("invalid {JQ} expression %q: %s", expr, err)
	}
	return code, nil
}

// JQLimits bound one --jq evaluation, so an expression that never ends
// (until(false; .)), never stops producing (repeat(1)) or builds an
// endless value ([range(1e9)]) ends with a clear error instead of growing
// to gigabytes deaf to Ctrl-C. Zero fields take the defaults.
type JQLimits struct {
	MaxOutput int64         // bytes of results written
	MaxTime   time.Duration // time to evaluate
	// MaxHeap is the memory an evaluation may add to what the process held
	// from the system when it began (see memoryWatch).
	MaxHeap uint64
}

// The default --jq bounds: far beyond any filter of an API answer.
const (
	DefaultJQMaxOutput = 256 << 20
	DefaultJQMaxTime   = 30 * time.Second
	// The memory bound is on what the Go runtime holds from the system (the
	// bulk of RSS), counted from the evaluation's start, so the answer
	// itself is never held against the filter: 50,000 instances decode to
	// about 540 MiB of heap (the former 256 MiB bound on the whole heap
	// refused even their `.[].name`), and the ordinary filters of such a
	// list (.[].name, map(. + {x:1}), sort_by, group_by) add 3–70 MiB.
	// 160 MiB keeps a runaway filter of a small answer under 300 MiB of
	// peak RSS ([repeat(1)], def f: [f]; f, [range(1e12)]: 172–240 MiB
	// over ten runs each, bench/results-hostile.md); 224 MiB polled
	// every 10 ms reached 313 MiB, as one append's new array (a quarter
	// larger than the old, which it copies) lands between two polls.
	DefaultJQMaxHeap = 160 << 20
)

func (l JQLimits) withDefaults() JQLimits {
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultJQMaxOutput
	}
	if l.MaxTime <= 0 {
		l.MaxTime = DefaultJQMaxTime
	}
	if l.MaxHeap == 0 {
		l.MaxHeap = DefaultJQMaxHeap
	}
	return l
}

// JQError is an error the --jq expression raised as it ran: error("x"),
// halt_error, a function given the wrong type. It keeps gojq's text but
// not gojq's error, whose ExitCode (5, jq's own code for an error, or
// halt_error's argument) would otherwise become shakectl's: 5 means "not
// found" here, 3 "checks failed". A filter that fails
// on the answer is a failure, exit 1; one that does not compile is a
// usage error (ParseJQ).
type JQError struct{ Msg string }

func (e *JQError) Error() string { return e.Render(nil) }

// Render is the message with the option named {JQ} written by name, as
// internal/fielderr's Render; gojq's text (the expression's own, or the
// answer's) is never read as a placeholder.
func (e *JQError) Render(name func(field string) string) string {
	return fielderr.Sprintf(name, "{JQ}: %s", e.Msg)
}

// JQLimitError is a --jq evaluation stopped by one of its bounds; Reason
// names the option as {JQ}.
type JQLimitError struct{ Reason string }

func (e *JQLimitError) Error() string { return e.Render(nil) }

// Render is the message with {JQ} written by name, as JQError's.
func (e *JQLimitError) Render(name func(field string) string) string {
	return fielderr.Placeholders("{JQ} stopped: "+e.Reason, name)
}

// memoryPoll is how often a --jq evaluation's memory is looked at: a runaway
// filter adds tens of MiB in 10 ms, and one read of runtime/metrics costs
// about a microsecond, without stopping the world.
const memoryPoll = 5 * time.Millisecond

// writeJQ runs the --jq filter over a JSON document and prints each result
// on its own line as it is produced: strings bare (as gh --jq does, ready
// for a shell loop), anything else as compact JSON with C1 controls escaped
// (termtext.JSON). The evaluation stops
// when the run's context ends (Ctrl-C), and at the bounds of limits.
//
// A bare string is the server's text: on a terminal (tty) it goes through
// termtext.Block, as a non-JSON body does, so `--jq '.[].name'` cannot set
// the window title or forge a line (scripts/hostile.sh found it printed an
// instance name's escapes raw); piped, it stays the server's bytes.
func writeJQ(ctx context.Context, w io.Writer, tty bool, code *gojq.Code, raw json.RawMessage, limits JQLimits) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the API answered with invalid JSON: %w", err)
	}
	v = normaliseNumbers(v)
	if ctx == nil {
		ctx = context.Background()
	}
	l := limits.withDefaults()
	// gojq checks its context at every step of the evaluation, so one
	// cancellation serves Ctrl-C, the time bound and the memory bound.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(l.MaxTime, func() {
		cancel(&JQLimitError{fmt.Sprintf("it ran for %s, the most {JQ} may take (does the expression end? until(false; .) never does)", l.MaxTime)})
	})
	defer timer.Stop()
	// The baseline is read here, before the first step of the evaluation.
	go newMemoryWatch(l.MaxHeap).run(ctx, cancel)

	var written int64
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	iter := code.RunWithContext(ctx, v)
	for {
		x, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := x.(error); isErr {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if h, halt := err.(*gojq.HaltError); halt && h.Value() == nil {
				return nil
			}
			return &JQError{Msg: err.Error()}
		}
		b.Reset()
		var out []byte
		if s, isStr := x.(string); isStr {
			if tty {
				s = termtext.Block(s)
			}
			b.WriteString(s)
			b.WriteByte('\n')
			out = b.Bytes()
		} else if err := enc.Encode(x); err != nil {
			return &JQError{Msg: err.Error()}
		} else {
			out = termtext.JSON(b.Bytes())
		}
		written += int64(len(out))
		if written > l.MaxOutput {
			return &JQLimitError{fmt.Sprintf("its results passed %s, the most {JQ} writes (does the expression end? repeat(1) never does)", SizeText(l.MaxOutput))}
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
}

// memoryWatch cancels ctx once the evaluation has added more than max to
// the memory the Go runtime holds from the system (mapped and not returned:
// what RSS is made of, the binary aside), until ctx ends. The live heap
// alone is not enough: the old bound on it let RSS reach 298–452 MiB at
// 256 MiB, as the arrays a growing value leaves behind stay resident.
//
// The garbage a filter makes counts too, until the collector frees it, and
// the collector lets it grow to about GOGC% of the heap before it does: a
// filter that streams over a large answer (.[] | tojson over 50,000
// instances) looked as if it grew by 216 MiB. So that headroom is added to
// max: a filter of a small answer is held to max, one of a large answer to
// max plus the answer's own size.
type memoryWatch struct {
	samples    []metrics.Sample
	max, limit uint64
}

func newMemoryWatch(max uint64) *memoryWatch {
	w := &memoryWatch{max: max, samples: []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/gogc:percent"},
	}}
	base, heap, gogc := w.read()
	w.limit = base + max + heap*gogc/100
	return w
}

// read returns the memory the runtime holds from the system, the heap's
// objects (live and not yet collected) and GOGC.
func (w *memoryWatch) read() (resident, heap, gogc uint64) {
	metrics.Read(w.samples)
	for _, s := range w.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, 0, 100
		}
	}
	gogc = w.samples[3].Value.Uint64()
	if gogc == 0 || gogc > 1000 {
		// GOGC=off (or a huge one) gives no headroom to measure;
		// count garbage as the default collector would.
		gogc = 100
	}
	return w.samples[0].Value.Uint64() - w.samples[1].Value.Uint64(), w.samples[2].Value.Uint64(), gogc
}

func (w *memoryWatch) run(ctx context.Context, cancel context.CancelCauseFunc) {
	// The first reading comes a memoryPoll after the baseline.
	_, err := poll.Poll[uint64]{
		Every: poll.Constant(memoryPoll),
		Get: func(context.Context) (uint64, error) {
			resident, _, _ := w.read()
			return resident, nil
		},
		Done: func(resident uint64) (bool, error) { return resident > w.limit, nil },
	}.WaitFrom(ctx, 0)
	if err == nil {
		cancel(&JQLimitError{fmt.Sprintf("it held more than %s of memory, the most {JQ} may use (does it build an endless value? [range(1e9)] does)", SizeText(int64(w.max)))})
	}
}

// SizeText says a byte count the way a person reads it: in the largest
// binary unit that divides it exactly, else in bytes.
func SizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// normaliseNumbers turns json.Number into the int or float64 gojq works
// with, so large integers (sizes, timestamps) keep their digits.
func normaliseNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = normaliseNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = normaliseNumbers(x)
		}
	}
	return v
}

// selectColumns keeps and orders the chosen columns of a list.
func selectColumns(cols []Column, rows [][]string, names []string) ([]Column, [][]string, error) {
	if len(names) == 0 {
		return cols, rows, nil
	}
	valid := make([]string, len(cols))
	for i, c := range cols {
		valid[i] = strings.ToUpper(c.Header)
	}
	idx := make([]int, len(names))
	for i, n := range names {
		idx[i] = slices.Index(valid, strings.ToUpper(strings.TrimSpace(n)))
		if idx[i] < 0 {
			return nil, nil, &ColumnError{Name: n, Valid: valid}
		}
	}
	outCols := make([]Column, len(idx))
	for i, j := range idx {
		outCols[i] = cols[j]
	}
	outRows := make([][]string, len(rows))
	for r, row := range rows {
		outRows[r] = make([]string, len(idx))
		for i, j := range idx {
			if j < len(row) {
				outRows[r][i] = row[j]
			}
		}
	}
	return outCols, outRows, nil
}

// fitWidths shrinks the widest columns until a row fits in limit (0 = no
// limit), never below a few characters nor below a column's floor (keep,
// from wholeFloor: what its UUIDs need), so one long name cannot push every
// other column off an 80-column screen. The first column (the UUID or name
// people copy into the next command) is cut only when the others cannot
// give way enough. A row that still does not fit is left wider than limit,
// and the terminal wraps it: a UUID cut short would name nothing.
func fitWidths(widths, keep []int, limit int) []int {
	if limit <= 0 || len(widths) == 0 {
		return widths
	}
	out := slices.Clone(widths)
	total := func() int {
		t := 0
		for _, w := range out {
			t += w
		}
		return t + 2*(len(out)-1)
	}
	const minWidth = 8
	floor := func(i int) int {
		f := minWidth
		if i < len(keep) {
			f = max(f, keep[i])
		}
		return min(f, widths[i])
	}
	// The other columns give way first; the first only when they cannot.
	for _, from := range []int{min(1, len(out)-1), 0} {
		for total() > limit {
			widest, room := -1, 0
			for i := from; i < len(out); i++ {
				if r := out[i] - floor(i); r > 0 && (widest < 0 || out[i] > out[widest]) {
					widest, room = i, r
				}
			}
			if widest < 0 {
				break
			}
			out[widest] -= min(room, total()-limit)
		}
	}
	return out
}

// uuidPattern finds a UUID in a cell (8-4-4-4-12 hex digits).
// Compiled when a table first prints, not at every start-up.
var uuidPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
})

// wholeFloor is the narrowest width truncate may cut cell to and keep every
// UUID in it whole (0 when it holds none): up to the end of its last UUID,
// plus the ellipsis when more follows.
func wholeFloor(cell string) int {
	loc := uuidPattern().FindAllStringIndex(cell, -1)
	if loc == nil {
		return 0
	}
	end := width(cell[:loc[len(loc)-1][1]])
	if end < width(cell) {
		end++
	}
	return end
}

// truncate cuts s to n runes, ending with an ellipsis when it was longer.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
