package timer

import (
	"context"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// timerfdSleeper waits on a timerfd through the runtime's poller: the
// goroutine parks as on a socket, and epoll wakes it when the kernel timer
// expires, to the microsecond rather than the millisecond.
type timerfdSleeper struct {
	f    *os.File // owns the timerfd; never f.Fd(), which makes f blocking
	rc   syscall.RawConn
	stop func() bool
	buf  [8]byte
	// fallback waits if the kernel timer ever fails, rather than end the
	// run's schedule early.
	fallback *timerSleeper
}

func newPreciseSleeper(ctx context.Context) (Sleeper, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	// A deadline works only on a file the poller took: then a cancelled
	// run can wake a waiting read, and a wait never holds a thread.
	rc, err := f.SyscallConn()
	if err == nil {
		err = f.SetReadDeadline(time.Time{})
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &timerfdSleeper{f: f, rc: rc}
	s.stop = context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	return s, nil
}

func (s *timerfdSleeper) Sleep(ctx context.Context, d time.Duration) bool {
	// The timer is armed inside the poller's read, after the poller has
	// forgotten earlier readiness, so its expiry is an edge the poller
	// sees; and the first, certain-to-fail read is skipped (at 20,000
	// sends a second that is 20,000 system calls). Arming also resets the
	// expiry count. A zero value would disarm the timer; d > 0 is at
	// least 1 ns.
	armed, failed := false, false
	err := s.rc.Read(func(fd uintptr) bool {
		if !armed {
			armed = true
			spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
			failed = unix.TimerfdSettime(int(fd), 0, &spec, nil) != nil
			return failed
		}
		// The timerfd is non-blocking: this read cannot block.
		_, err := unix.Read(int(fd), s.buf[:])
		if err == unix.EAGAIN {
			return false
		}
		failed = err != nil
		return true
	})
	if ctx.Err() != nil {
		return false
	}
	if err == nil && !failed {
		return true
	}
	if s.fallback == nil {
		s.fallback = newTimerSleeper()
	}
	return s.fallback.Sleep(ctx, d)
}

func (s *timerfdSleeper) Close() {
	s.stop()
	s.f.Close()
	if s.fallback != nil {
		s.fallback.Close()
	}
}
