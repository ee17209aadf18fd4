package probe

import (
	"context"
	"time"
)

// sleeper waits for an open run's next due time.
type sleeper interface {
	// sleep waits d (> 0), or until ctx is done; it reports whether d
	// elapsed with ctx still live.
	sleep(ctx context.Context, d time.Duration) bool
	close()
}

// newSleeper returns a kernel-timer sleeper when precise is set and the
// platform has one, else the runtime's timer.
//
// Why: Go's runtime sleeps an idle program in epoll_pwait, whose timeout
// is in milliseconds, so a 40 µs wait ends about 1.1 ms late (go1.26,
// linux). That alone put an open run's send lateness p99 at 1.2 ms at any
// rate, against a 2 ms criterion (issue 15, BenchmarkSleepLateness). A
// timerfd in the same epoll set wakes it within about 0.1 ms, and the
// waiting goroutine still holds no thread.
func newSleeper(ctx context.Context, precise bool) sleeper {
	if precise {
		if s, err := newPreciseSleeper(ctx); err == nil {
			return s
		}
	}
	return newTimerSleeper()
}

// timerSleeper waits on a runtime timer (and on synctest's virtual clock).
type timerSleeper struct{ t *time.Timer }

func newTimerSleeper() *timerSleeper {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerSleeper{t: t}
}

func (s *timerSleeper) sleep(ctx context.Context, d time.Duration) bool {
	s.t.Reset(d)
	select {
	case <-s.t.C:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

func (s *timerSleeper) close() { s.t.Stop() }
