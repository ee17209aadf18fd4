package output

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// noTimeBound is the time bound of a test of another bound: the machine's
// speed decides how long a filter takes to reach 64 KiB or 160 MiB (24 s for
// def f: [f]; f at load 30), so a test that judges the memory or output bound
// must not race it against the time bound (issue 32, item 7).
const noTimeBound = 4 * time.Minute

// runJQ evaluates expr over doc the way the printers do, within the given
// bounds, on its own goroutine so the test's own time stays bounded.
func runJQ(t *testing.T, ctx context.Context, expr string, limits JQLimits, w io.Writer) error {
	t.Helper()
	code, err := ParseJQ(expr)
	if err != nil {
		t.Fatal(err)
	}
	collectGarbage()
	done := make(chan error, 1)
	go func() { done <- writeJQ(ctx, w, false, code, json.RawMessage(`[{"name":"a"},{"name":"b"}]`), limits) }()
	select {
	case err := <-done:
		return err
	case <-time.After(noTimeBound + time.Minute):
		t.Fatalf("--jq %s did not stop", expr)
		return nil
	}
}

// collectGarbage starts an evaluation as a fresh shakectl process does,
// without the garbage of an earlier one: the memory bound allows for the
// heap the evaluation starts with (GOGC's headroom), so the garbage a
// previous runaway left would raise the next one's bound by as much,
// and each repetition (-count=5) ran further and longer than the last
// (2 s, 22 s, 105 s).
func collectGarbage() { runtime.GC() }

// Issue 28, item 5: runaway expressions grew to 14.7 GB deaf to SIGINT.
// Each now ends at a bound with an error that says which and why.
func TestRunawayJQEndsAtItsBound(t *testing.T) {
	for _, c := range []struct {
		expr   string
		limits JQLimits
		want   string
	}{
		{"until(false; .)", JQLimits{MaxTime: 100 * time.Millisecond}, "it ran for 100ms, the most JQ may take"},
		{"repeat(1)", JQLimits{MaxOutput: 64 << 10, MaxTime: noTimeBound}, "its results passed 64 KiB, the most JQ writes"},
		{"[range(1e9)]", JQLimits{MaxHeap: 16 << 20, MaxTime: noTimeBound}, "it held more than 16 MiB of memory"},
	} {
		err := runJQ(t, context.Background(), c.expr, c.limits, io.Discard)
		var le *JQLimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--jq %s: %v; want %q", c.expr, err, c.want)
		}
	}
}

// Ctrl-C (the run's context) stops an evaluation with the context's
// cause, so the command exits 130.
func TestJQStopsOnCancel(t *testing.T) {
	errSignal := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	w := &firstWrite{fn: func() { cancel(errSignal) }}
	err := runJQ(t, ctx, "repeat(.[0].name)", JQLimits{}, w)
	if !errors.Is(err, errSignal) {
		t.Errorf("got %v, want the run's cause", err)
	}
}

// Results are written as they are produced, not gathered first: the
// first result reaches the writer while the expression still runs.
func TestJQStreamsResults(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	w := &firstWrite{fn: func() { cancel(errors.New("seen")) }}
	runJQ(t, ctx, `.[].name, until(false; .)`, JQLimits{}, w)
	if got := w.b.String(); got != "a\n" {
		t.Errorf("first write %q before the endless part, want %q", got, "a\n")
	}
}

// firstWrite calls fn on its first write, keeping what it was given.
type firstWrite struct {
	fn   func()
	done bool
	b    strings.Builder
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		w.b.Write(p)
		w.fn()
	}
	return len(p), nil
}

func TestJQOrdinaryExpressions(t *testing.T) {
	var b strings.Builder
	if err := runJQ(t, context.Background(), ".[].name", JQLimits{}, &b); err != nil || b.String() != "a\nb\n" {
		t.Errorf("%q %v", b.String(), err)
	}
	b.Reset()
	if err := runJQ(t, context.Background(), "map(.name) | length, halt", JQLimits{}, &b); err != nil || b.String() != "2\n" {
		t.Errorf("%q %v", b.String(), err)
	}
}

// instanceList is n copies of a real instance (shakenfist, in
// client/testdata/instance_created.json), each named "iN".
func instanceList(t *testing.T, n int) json.RawMessage {
	t.Helper()
	one, err := os.ReadFile("../client/testdata/instance_created.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(bytes.Replace(one, []byte(`"name": "web1"`), fmt.Appendf(nil, `"name": "i%d"`, i), 1))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// The memory bound counts what an evaluation adds, not the answer: with a
// bound far below the decoded answer (2,000 instances decode to about
// 22 MiB; the bound is 8 MiB), ordinary filters of it run to the end, the
// garbage of one that streams over it (tojson) included, while a runaway
// filter of the same answer is still refused with the bound's error. The
// former bound on the whole heap refused `.[].name` of 50,000 instances.
// (The answer and the bound are scaled down together from 5,000 and
// 16 MiB: what the filters add grows with the answer, about 1.4 KiB an
// instance, so the test asks the same of the bound at a fifth of the
// work.)
func TestJQMemoryBoundCountsWhatTheFilterAdds(t *testing.T) {
	raw := instanceList(t, 2000)
	limits := JQLimits{MaxHeap: 8 << 20, MaxTime: noTimeBound}
	for _, c := range []struct{ expr, last string }{
		{".[].name", "i1999\n"},
		{"map(. + {x: 1}) | length", "2000\n"},
		{"sort_by(.name) | .[0].name", "i0\n"},
		{".[] | tojson | length", "\n"},
	} {
		code, err := ParseJQ(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		collectGarbage()
		if err := writeJQ(context.Background(), &out, false, code, raw, limits); err != nil || !strings.HasSuffix(out.String(), c.last) {
			t.Errorf("--jq %s over 2,000 instances: %v (output ends %q)", c.expr, err, out.String()[max(0, out.Len()-20):])
		}
	}
	code, err := ParseJQ("[repeat(.[0])]")
	if err != nil {
		t.Fatal(err)
	}
	collectGarbage()
	err = writeJQ(context.Background(), io.Discard, false, code, raw, limits)
	var le *JQLimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "it held more than 8 MiB of memory, the most JQ may use") {
		t.Errorf("a runaway filter of a large answer: %v", err)
	}
}

// The memory bound refuses a runaway filter of a small answer with the
// bound's own error, not the time bound's, and a zero bound is the
// default, 160 MiB. The filter runs against a 16 MiB bound: reaching the
// default's 160 MiB took the suite 17 s at load 24, and the watch that
// stops it is the same whatever the bound. (scripts/hostile.sh measures
// the RSS the default leaves: [repeat(1)] and [range(1e12)] take seconds
// more.)
func TestJQDefaultMemoryBoundRefuses(t *testing.T) {
	if got := (JQLimits{}).withDefaults().MaxHeap; got != DefaultJQMaxHeap || DefaultJQMaxHeap != 160<<20 {
		t.Errorf("a zero memory bound is %d, want the default 160 MiB (DefaultJQMaxHeap %d)", got, DefaultJQMaxHeap)
	}
	for _, expr := range []string{"def f: [f]; f"} {
		err := runJQ(t, context.Background(), expr, JQLimits{MaxHeap: 16 << 20, MaxTime: noTimeBound}, io.Discard)
		if err == nil || err.Error() != "JQ stopped: it held more than 16 MiB of memory, the most JQ may use (does it build an endless value? [range(1e9)] does)" {
			t.Errorf("--jq %s: %v", expr, err)
		}
	}
}
