package report

import (
	"strings"
	"testing"
	"time"
)

// sender_on_schedule also fails on late sends alone: all were sent, but
// their p99 lateness reached the bound.
func TestSenderLateSendsFail(t *testing.T) {
	for _, c := range []struct {
		late   time.Duration
		status string
		detail string
	}{
		{5 * time.Millisecond, CheckOK, "send lateness p99 5ms under 100ms"},
		{300 * time.Millisecond, CheckFailed, "its sends' p99 lateness was 300ms, not under 100ms"},
	} {
		r := &Report{Mode: ModeOpen, Requests: 100, Load: LoadInfo{Scheduled: 100, Rate: 100}, Outcomes: map[string]*OutcomeStats{}}
		h := NewHistogram()
		for range 100 {
			RecordDuration(h, c.late)
		}
		r.SetSendLateness(h)
		r.Evaluate(CheckConfig{})
		got := checkNamed(r, CheckSenderOnSchedule)
		if got.Status != c.status || !strings.Contains(got.Detail, c.detail) {
			t.Errorf("late %s: %s %q, want %s with %q", c.late, got.Status, got.Detail, c.status, c.detail)
		}
	}
}

func checkNamed(r *Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}
