// Package timer waits for an open run's due times more precisely than the
// runtime's timers can on linux.
package timer

import (
	"context"
	"time"
)

// Sleeper waits for an open run's next due time.
type Sleeper interface {
	// Sleep waits d (> 0), or until ctx is done; it reports whether d
	// elapsed with ctx still live.
	Sleep(ctx context.Context, d time.Duration) bool
	Close()
}

// New returns a kernel-timer Sleeper when precise is set and the platform
// has one (linux), else the runtime's timer.
//
// Why: since go1.16 the runtime sleeps an idle program in epoll_pwait,
// whose timeout is in milliseconds, so a short timer fires up to about a
// millisecond late on linux (golang/go#44343, "runtime: time.Sleep takes
// more time than expected", a go1.16 regression labelled OS-Linux as well
// as OS-Windows; still so in go1.26, where a 40 µs wait ended about 1.1 ms
// late here). That alone put an open run's
// send lateness p99 at 1.2 ms at any rate, against a 2 ms criterion
// (BenchmarkSleepLateness). A timerfd in the same epoll set
// wakes it within about 0.1 ms, and the waiting goroutine still holds no
// thread.
func New(ctx context.Context, precise bool) Sleeper {
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

func (s *timerSleeper) Sleep(ctx context.Context, d time.Duration) bool {
	s.t.Reset(d)
	select {
	case <-s.t.C:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

func (s *timerSleeper) Close() { s.t.Stop() }
