package probe

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Ctrl-C while a huge burst (here 10 000, enough to tell) is being prepared (one goroutine per request,
// all held behind the release barrier): preparation stops at the signal,
// nothing is sent, and the barrier never opens. The signal comes from the
// request-index hook, so the test needs no timing.
func TestInterruptWhilePreparingHugeBurst(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	const signalAt = 100
	var prepared, sent atomic.Int64
	b := burstShape{requests: 10_000, index: func(i uint64) int {
		if prepared.Add(1) == signalAt {
			cancel(errors.New("test signal"))
		}
		return 0
	}}
	var wg sync.WaitGroup
	started := false
	b.Drive(ctx, &wg, time.Time{}, func(time.Time) { started = true }, func(uint64, uint64, int, time.Time, time.Duration) { sent.Add(1) })
	wg.Wait()
	if n := prepared.Load(); n != signalAt {
		t.Errorf("prepared %d requests, want preparation to stop at the signal (%d)", n, signalAt)
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests sent after the signal", n)
	}
	if !started {
		t.Error("the sampler was not started, so the partial report has no clock")
	}
}

// Issue 28, item 8: an open pacer that cannot keep up sent its whole
// backlog after the duration, so an overloaded 3 s run went on for 12.8 s.
// Here the pacer's clock runs two intervals per scheduled request (it
// keeps half the rate): it must stop at the duration, about half-way
// through the schedule, not send all of it.
func TestOpenPacerBehindStopsAtTheDuration(t *testing.T) {
	const rate = 100.0
	duration := time.Second
	interval := time.Duration(float64(time.Second) / rate)
	var clock atomic.Int64
	o := openShape{pacer: NewPacer(rate, duration), index: func(uint64) int { return 0 },
		elapsed: func(time.Time) time.Duration { return time.Duration(clock.Add(int64(2 * interval))) }}
	// Bounds a hang, not a speed: the pacer never sleeps here.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var sent atomic.Int64
	o.Drive(ctx, &wg, time.Now(), func(time.Time) {}, func(uint64, uint64, int, time.Time, time.Duration) { sent.Add(1) })
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the pacer did not return")
	}
	// Request j is looked at when the clock reads 2(j+1) intervals: those
	// before the duration, duration/(2 interval) - 1 of them, are sent.
	want := int64(duration/(2*interval)) - 1
	if got := sent.Load(); got != want {
		t.Errorf("sent %d of the schedule's %d requests, want %d: none once the duration is over", got, int(rate*duration.Seconds()), want)
	}
}
