package output

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// runJQ evaluates expr over doc the way the printers do, within the given
// bounds, on its own goroutine so the test's own time stays bounded.
func runJQ(t *testing.T, ctx context.Context, expr string, limits JQLimits, w io.Writer) error {
	t.Helper()
	code, err := ParseJQ(expr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- writeJQ(ctx, w, false, code, json.RawMessage(`[{"name":"a"},{"name":"b"}]`), limits) }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("--jq %s did not stop", expr)
		return nil
	}
}

// Issue 28, item 5: runaway expressions grew to 14.7 GB deaf to SIGINT.
// Each now ends at a bound with an error that says which and why.
func TestRunawayJQEndsAtItsBound(t *testing.T) {
	for _, c := range []struct {
		expr   string
		limits JQLimits
		want   string
	}{
		{"until(false; .)", JQLimits{MaxTime: 100 * time.Millisecond}, "it ran for 100ms, the most --jq may take"},
		{"repeat(1)", JQLimits{MaxOutput: 64 << 10}, "its results passed 64 KiB, the most --jq writes"},
		{"[range(1e9)]", JQLimits{MaxHeap: 64 << 20}, "it held more than 64 MiB of memory"},
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
