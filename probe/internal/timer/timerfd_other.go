//go:build !linux

package timer

import (
	"context"
	"errors"
)

// newPreciseSleeper has no kernel timer to offer here: open runs wait on
// the runtime's timer.
func newPreciseSleeper(context.Context) (Sleeper, error) {
	return nil, errors.New("no timerfd on this platform")
}
