package retry

import (
	"fmt"
	"time"
)

// Notice describes one wait before a retry, for the line on stderr.
type Notice struct {
	Stage   string        // the refusal's stage
	Wait    time.Duration // what will actually be slept: min(clamped Retry-After, Left)
	Attempt int           // the attempt about to be sent, 2..MaxAttempts
	Max     int           // MaxAttempts
	Left    time.Duration // budget left before this wait
}

// String is the line the command prints, e.g. "capacity refused at stage
// sufficient_idle_cpu (transient); retrying in 15s (attempt 2/5, 44s left)".
func (n Notice) String() string {
	return fmt.Sprintf("capacity refused at stage %s (transient); retrying in %s (attempt %d/%d, %s left)",
		n.Stage, roundDown(n.Wait), n.Attempt, n.Max, roundDown(n.Left))
}

// roundDown renders a wait or the budget left rounded down to the second,
// so the line never promises more time than there is (59.99s left reads
// "59s", not "1m0s"), and a wait cut to the budget reads the same as the
// budget ("retrying in 2s (attempt 2/5, 2s left)").
func roundDown(d time.Duration) string {
	if d >= time.Second {
		return d.Truncate(time.Second).String()
	}
	return HumanDuration(d)
}

// HumanDuration renders a wait the way a person reads it: whole seconds
// ("15s", "1m30s"), milliseconds below a second ("300ms").
func HumanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
