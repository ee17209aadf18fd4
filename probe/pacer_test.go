package probe

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// The schedule holds floor(rate × duration) requests, the load.scheduled
// the report states: 1.5 req/s for 1 s is one request, and a rate or a
// duration that is not positive is none.
func TestPacerSchedulesFloorRateTimesDuration(t *testing.T) {
	for _, c := range []struct {
		rate float64
		d    time.Duration
		want uint64
	}{
		{100, 10 * time.Second, 1000},
		{97, 3 * time.Second, 291},
		{1.5, time.Second, 1},
		{0.5, time.Second, 0},
		{0, time.Second, 0},
		{-3, time.Second, 0},
		{10, -time.Second, 0},
	} {
		if got := NewPacer(c.rate, c.d).Requests(); got != c.want {
			t.Errorf("%g req/s for %s: %d requests, want %d", c.rate, c.d, got, c.want)
		}
	}
}

// Pace spaces the requests 1/rate apart from the start, says how late a
// request is, and stops at the end of the schedule and at the duration,
// however far behind the sender is.
func TestPacerPace(t *testing.T) {
	p := NewPacer(4, time.Second) // due at 0, 250ms, 500ms, 750ms
	for _, c := range []struct {
		elapsed time.Duration
		k       uint64
		wait    time.Duration
		stop    bool
	}{
		{0, 0, 0, false},
		{100 * time.Millisecond, 1, 150 * time.Millisecond, false},
		{600 * time.Millisecond, 2, -100 * time.Millisecond, false}, // late
		{700 * time.Millisecond, 3, 50 * time.Millisecond, false},
		{800 * time.Millisecond, 4, 0, true}, // the schedule is over
		{time.Second, 3, 0, true},            // behind, and the duration is over
	} {
		wait, stop := p.Pace(c.elapsed, c.k)
		if wait != c.wait || stop != c.stop {
			t.Errorf("Pace(%s, %d) = %s, %v; want %s, %v", c.elapsed, c.k, wait, stop, c.wait, c.stop)
		}
	}
}

// What a run may hold in flight: the requests due within a span, counted
// up, and a shard's share (every shards-th request) of the same.
func TestPacerWithin(t *testing.T) {
	p := NewPacer(100, time.Minute)
	if got := p.Within(2 * time.Second); got != 200 {
		t.Errorf("100 req/s within 2s: %d, want 200", got)
	}
	if got := p.PerShard(4).Within(2 * time.Second); got != 50 {
		t.Errorf("a quarter of 100 req/s within 2s: %d, want 50", got)
	}
	if got := NewPacer(3, time.Minute).PerShard(2).Within(time.Second); got != 2 {
		t.Errorf("1.5 req/s within 1s: %d, want 2 (counted up)", got)
	}
	if got := NewPacer(1e6, time.Hour).Within(1e6 * time.Hour); got <= 0 {
		t.Errorf("a huge span: %d, want a positive count", got)
	}
}

// The achieved rate counts the span up to when the next request would
// have been due: a run that kept 100 req/s for 1 s (its last send at
// 990 ms) achieved 100 req/s.
func TestPacerAchieved(t *testing.T) {
	if got := NewPacer(100, time.Second).Achieved(100, 990*time.Millisecond); got < 99.999 || got > 100.001 {
		t.Errorf("achieved %g req/s, want 100", got)
	}
}

// The sender asks Pace once per request: it allocates nothing.
func TestPacerPaceAllocatesNothing(t *testing.T) {
	p := NewPacer(1000, time.Minute)
	var k uint64
	var late time.Duration
	if n := testing.AllocsPerRun(1000, func() {
		wait, _ := p.Pace(time.Duration(k)*time.Millisecond, k)
		late += wait
		k++
	}); n != 0 {
		t.Errorf("Pace allocates %g times a call", n)
	}
}

// The pacer owns the rate's arithmetic: nowhere else in the probe or its
// command is a rate multiplied or divided (by a duration, a shard count or
// anything else), so the schedule sent, the load reported and the load the
// shards split cannot drift apart. A new computation goes into Pacer.
func TestOnlyThePacerComputesWithTheRate(t *testing.T) {
	srcscan.Walk(t, []string{".", "../cmd/parkingprobe"}, 30, func(f srcscan.File) {
		if f.Path == "pacer.go" {
			return
		}
		ast.Inspect(f.AST, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.MUL || b.Op == token.QUO) && (namesARate(b.X) || namesARate(b.Y)) {
				t.Errorf("%s: arithmetic on a rate outside Pacer", f.Pos(b))
			}
			return true
		})
	})
}

// namesARate reports whether e mentions a rate: rate, Rate, o.Rate,
// AchievedRate, ratePerShard (not "generated" or "iterate").
func namesARate(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			s := id.Name
			found = found || s == "rate" || strings.HasSuffix(s, "Rate") ||
				strings.HasPrefix(s, "rate") && len(s) > 4 && s[4] >= 'A' && s[4] <= 'Z'
		}
		return !found
	})
	return found
}
