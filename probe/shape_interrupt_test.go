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
