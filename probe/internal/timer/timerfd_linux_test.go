package timer

import (
	"context"
	"testing"
)

// On linux an open run on the real clock waits on a timerfd.
func TestPreciseSleeperIsTheKernelTimerOnLinux(t *testing.T) {
	s := New(context.Background(), true)
	defer s.Close()
	if _, ok := s.(*timerfdSleeper); !ok {
		t.Errorf("precise Sleeper is %T, want the timerfd one", s)
	}
}
