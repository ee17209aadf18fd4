package timer

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Both sleepers wait at least what they are asked (a lower bound holds on
// any machine), and a cancelled run wakes a Sleeper that would wait an hour.
func TestSleepersWaitAndWakeOnCancel(t *testing.T) {
	for _, precise := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		s := New(ctx, precise)
		for _, d := range []time.Duration{time.Nanosecond, 50 * time.Microsecond, 5 * time.Millisecond} {
			began := time.Now()
			if !s.Sleep(ctx, d) {
				t.Fatalf("precise=%v: sleep(%v) reported a cancel", precise, d)
			}
			if got := time.Since(began); got < d {
				t.Errorf("precise=%v: sleep(%v) returned after %v", precise, d, got)
			}
		}
		done := make(chan bool)
		go func() { done <- s.Sleep(ctx, time.Hour) }()
		cancel()
		if <-done {
			t.Errorf("precise=%v: an hour's sleep ended without its cancel", precise)
		}
		if s.Sleep(ctx, time.Hour) {
			t.Errorf("precise=%v: a sleep after the cancel waited", precise)
		}
		s.Close()
	}
}

// BenchmarkSleepLateness reports how late each Sleeper wakes from a 50 µs
// wait, the gap between sends at 20,000/s, on an otherwise idle program:
// go test -run '^$' -bench SleepLateness ./probe/internal/timer
func BenchmarkSleepLateness(b *testing.B) {
	for _, c := range []struct {
		name    string
		precise bool
	}{{"runtime-timer", false}, {"timerfd", true}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			s := New(ctx, c.precise)
			defer s.Close()
			const d = 50 * time.Microsecond
			late := make([]time.Duration, 0, b.N)
			for b.Loop() {
				began := time.Now()
				s.Sleep(ctx, d)
				late = append(late, time.Since(began)-d)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-late-µs")
		})
	}
}
