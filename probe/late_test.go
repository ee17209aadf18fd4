package probe

import (
	"strings"
	"testing"
	"time"
)

// Issue 28, item 8: an open run whose sends fall behind the schedule says
// so while it runs, once, naming the rate.
func TestLateOpenRunWarnsOnce(t *testing.T) {
	var warnings []string
	e := &engine{o: &Options{Mode: Open, Rate: 100000, Warn: func(w *Warning) { warnings = append(warnings, w.Error()) }}, rec: newRecorder(1, true, 0, 1)}
	start := time.Now().Add(-2 * time.Second)
	e.noteSend(&sentRequest{start: start, due: 1900 * time.Millisecond}) // ~100ms late: fine
	if len(warnings) != 0 {
		t.Fatalf("warned on a send within the bound: %q", warnings)
	}
	e.noteSend(&sentRequest{start: start, due: time.Second}) // ~1s late
	e.noteSend(&sentRequest{start: start, due: 0})           // ~2s late
	if len(warnings) != 1 || !strings.Contains(warnings[0], "open run behind its schedule") || !strings.Contains(warnings[0], "100000 req/s") {
		t.Errorf("want one notice naming the rate, got %q", warnings)
	}
}
