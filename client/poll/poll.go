// Package poll waits for something by looking at it again and again: the
// one way shakectl waits for a state, an operation, a lock or a reader.
//
// A Poll is a value: how often to look (Every), how to look (Get), when
// what was seen ends the wait (Done) and until when to try (Deadline).
// Nothing is kept between waits and nothing is process-wide, so a library
// caller and a command use the same type (as hcloud's action waiter takes
// a BackoffFunc and vegeta's attacker a Pacer).
package poll

import (
	"context"
	"errors"
	"time"
)

// Interval is the pause before the next look: n is 1 for the first
// pause, 2 for the second and so on.
type Interval func(n int) time.Duration

// Constant pauses d every time.
func Constant(d time.Duration) Interval {
	return func(int) time.Duration { return d }
}

// Backoff pauses first, then half as long again each time, never more
// than most: a wait that usually ends soon is seen to end soon, and a long
// one costs the server little.
func Backoff(first, most time.Duration) Interval {
	return func(n int) time.Duration {
		d := first
		for i := 1; i < n && d < most; i++ {
			d = d * 3 / 2
		}
		return min(d, most)
	}
}

// ErrDeadline is the end of a wait whose Deadline passed before Done said
// yes. It is a deadline like any other (errors.Is(ErrDeadline,
// context.DeadlineExceeded) holds), so code that tells deadlines from
// other failures needs nothing new for it.
var ErrDeadline error = deadlineError{}

type deadlineError struct{}

func (deadlineError) Error() string        { return "the deadline passed" }
func (deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }
func (deadlineError) Timeout() bool        { return true }

// Poll is one wait.
type Poll[T any] struct {
	// Every is the pause between looks; nil means one second.
	Every Interval
	// Get looks once. An error ends the wait with that error, unless the
	// wait's end cut the look short (then the wait ends as ended).
	Get func(ctx context.Context) (T, error)
	// Done judges what Get saw: true ends the wait, an error ends it with
	// that error (what was waited for failed), false looks again.
	Done func(T) (bool, error)
	// Deadline, when not zero, ends the wait with ErrDeadline; a look in
	// flight then is cut short. A deadline already passed when the wait
	// starts still allows one look: "look, do not wait".
	Deadline time.Time
}

// Wait looks until Done says yes, the Deadline passes or ctx ends, and
// returns the last answer Get gave (the zero T before the first) with
// Done's error, ErrDeadline, Get's error, or ctx's cause.
func (p Poll[T]) Wait(ctx context.Context) (T, error) {
	var none T
	return p.run(ctx, none, false)
}

// WaitFrom is Wait for a caller that has an answer in hand (what a
// request that started something returned): last is judged first, and
// the first look comes after the first pause.
func (p Poll[T]) WaitFrom(ctx context.Context, last T) (T, error) {
	return p.run(ctx, last, true)
}

func (p Poll[T]) run(ctx context.Context, last T, have bool) (T, error) {
	if p.Get == nil || p.Done == nil {
		return last, errors.New("poll: a Poll needs Get and Done")
	}
	every := p.Every
	if every == nil {
		every = Constant(time.Second)
	}
	if !p.Deadline.IsZero() && !time.Now().Before(p.Deadline) {
		return p.once(ctx, last, have)
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if !p.Deadline.IsZero() {
		wctx, cancel = context.WithDeadlineCause(ctx, p.Deadline, ErrDeadline)
	}
	defer cancel()
	for pauses := 0; ; {
		if have {
			if done, err := p.Done(last); done || err != nil {
				return last, err
			}
			pauses++
			t := time.NewTimer(every(pauses))
			select {
			case <-wctx.Done():
				t.Stop()
				return last, context.Cause(wctx)
			case <-t.C:
			}
		}
		v, err := p.Get(wctx)
		if err != nil {
			if wctx.Err() != nil {
				return last, context.Cause(wctx)
			}
			return last, err
		}
		last, have = v, true
	}
}

// once is the one look a deadline already passed allows: the answer in
// hand, else one Get bounded by ctx alone.
func (p Poll[T]) once(ctx context.Context, last T, have bool) (T, error) {
	if !have {
		v, err := p.Get(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return last, context.Cause(ctx)
			}
			return last, err
		}
		last = v
	}
	if done, err := p.Done(last); done || err != nil {
		return last, err
	}
	return last, ErrDeadline
}
