package probe

import (
	"context"
	"testing"
)

// On linux an open run on the real clock waits on a timerfd.
func TestPreciseSleeperIsTheKernelTimerOnLinux(t *testing.T) {
	s := newSleeper(context.Background(), true)
	defer s.close()
	if _, ok := s.(*timerfdSleeper); !ok {
		t.Errorf("precise sleeper is %T, want the timerfd one", s)
	}
}
