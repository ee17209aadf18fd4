package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client/poll"
)

// counter is a thing that reaches n after n looks, recording when it was
// looked at (on the bubble's clock, from the test's start).
type counter struct {
	start time.Time
	at    []time.Duration
	fail  map[int]error // the look (1-based) that fails, and how
	hang  map[int]bool  // the look that never answers
}

func (c *counter) get(ctx context.Context) (int, error) {
	c.at = append(c.at, time.Since(c.start))
	n := len(c.at)
	if c.hang[n] {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	if err := c.fail[n]; err != nil {
		return 0, err
	}
	return n, nil
}

func reaches(n int) func(int) (bool, error) {
	return func(v int) (bool, error) { return v >= n, nil }
}

func seconds(s ...float64) []time.Duration {
	var d []time.Duration
	for _, x := range s {
		d = append(d, time.Duration(x*float64(time.Second)))
	}
	return d
}

func TestWaitLooksEveryIntervalUntilDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now()}
		got, err := poll.Poll[int]{Every: poll.Constant(2 * time.Second), Get: c.get, Done: reaches(3)}.Wait(t.Context())
		if got != 3 || err != nil || !slices.Equal(c.at, seconds(0, 2, 4)) {
			t.Errorf("got %d, %v after looks at %v; want 3, nil after looks at 0s 2s 4s", got, err, c.at)
		}
	})
}

func TestWaitFromJudgesTheAnswerInHandFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now()}
		p := poll.Poll[int]{Every: poll.Constant(time.Second), Get: c.get, Done: reaches(1)}
		if got, err := p.WaitFrom(t.Context(), 5); got != 5 || err != nil || len(c.at) != 0 {
			t.Errorf("an answer already done: got %d, %v after %d looks", got, err, len(c.at))
		}
		got, err := poll.Poll[int]{Every: poll.Constant(time.Second), Get: c.get, Done: reaches(2)}.WaitFrom(t.Context(), 0)
		if got != 2 || err != nil || !slices.Equal(c.at, seconds(1, 2)) {
			t.Errorf("got %d, %v after looks at %v; want 2 after looks at 1s 2s", got, err, c.at)
		}
	})
}

// The default pause is a second.
func TestEveryDefaultsToASecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now()}
		poll.Poll[int]{Get: c.get, Done: reaches(3)}.Wait(t.Context())
		if !slices.Equal(c.at, seconds(0, 1, 2)) {
			t.Errorf("looks at %v, want 0s 1s 2s", c.at)
		}
	})
}

func TestBackoffGrowsByHalfUpToItsMost(t *testing.T) {
	b := poll.Backoff(500*time.Millisecond, 3*time.Second)
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, b(n))
	}
	want := []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond, 2531250 * time.Microsecond, 3 * time.Second, 3 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("Backoff(500ms, 3s) = %v, want %v", got, want)
	}
}

// The deadline ends the wait with ErrDeadline, which is a deadline to
// anything that asks, and the last answer seen.
func TestDeadlineEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now()}
		got, err := poll.Poll[int]{Every: poll.Constant(2 * time.Second), Get: c.get, Done: reaches(100), Deadline: time.Now().Add(5 * time.Second)}.Wait(t.Context())
		if got != 3 || !errors.Is(err, poll.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %d, %v; want the third answer and ErrDeadline", got, err)
		}
		if took := time.Since(c.start); took != 5*time.Second {
			t.Errorf("ended %s after it started, want at the deadline, 5s", took)
		}
	})
}

// A look still in flight at the deadline is cut short: the wait ends at
// the deadline with the answer before it.
func TestDeadlineCutsALookShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now(), hang: map[int]bool{2: true}}
		got, err := poll.Poll[int]{Every: poll.Constant(time.Second), Get: c.get, Done: reaches(100), Deadline: time.Now().Add(5 * time.Second)}.Wait(t.Context())
		if got != 1 || !errors.Is(err, poll.ErrDeadline) || time.Since(c.start) != 5*time.Second {
			t.Errorf("got %d, %v at %s; want 1, ErrDeadline at 5s", got, err, time.Since(c.start))
		}
	})
}

// A deadline already passed: look once, do not wait.
func TestAPassedDeadlineLooksOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{start: time.Now()}
		p := poll.Poll[int]{Get: c.get, Done: reaches(2), Deadline: time.Now()}
		if got, err := p.Wait(t.Context()); got != 1 || !errors.Is(err, poll.ErrDeadline) || len(c.at) != 1 {
			t.Errorf("got %d, %v after %d looks; want 1, ErrDeadline after one look", got, err, len(c.at))
		}
		if got, err := p.WaitFrom(t.Context(), 1); got != 1 || !errors.Is(err, poll.ErrDeadline) || len(c.at) != 1 {
			t.Errorf("from an answer in hand: got %d, %v after %d more looks; want no look", got, err, len(c.at)-1)
		}
		if got, err := p.WaitFrom(t.Context(), 2); got != 2 || err != nil {
			t.Errorf("an answer in hand that is done: got %d, %v", got, err)
		}
		p.Done = reaches(1)
		if got, err := p.Wait(t.Context()); got != 2 || err != nil {
			t.Errorf("one look that is done: got %d, %v", got, err)
		}
	})
}

// The caller's context ending (an interrupt) ends the wait with its cause,
// not ErrDeadline, whether the wait was pausing or looking.
func TestTheCallersEndIsItsCause(t *testing.T) {
	interrupted := errors.New("interrupted")
	for hang, want := range map[bool]int{false: 3, true: 2} {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			c := &counter{start: time.Now(), hang: map[int]bool{3: hang}}
			time.AfterFunc(2500*time.Millisecond, func() { cancel(interrupted) })
			got, err := poll.Poll[int]{Get: c.get, Done: reaches(100), Deadline: time.Now().Add(time.Hour)}.Wait(ctx)
			if got != want || err != interrupted || errors.Is(err, poll.ErrDeadline) {
				t.Errorf("third look hangs %v: got %d, %v; want %d, the cause", hang, got, err, want)
			}
		})
	}
}

// Get's and Done's own errors end the wait with them, and the last answer.
func TestAFailureEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broken := errors.New("500 server error")
		c := &counter{start: time.Now(), fail: map[int]error{3: broken}}
		if got, err := (poll.Poll[int]{Get: c.get, Done: reaches(100)}).Wait(t.Context()); got != 2 || err != broken {
			t.Errorf("a failed look: got %d, %v; want 2 and its error", got, err)
		}
		failed := errors.New("the operation ended in error")
		c = &counter{start: time.Now()}
		done := func(v int) (bool, error) {
			if v == 2 {
				return false, failed
			}
			return false, nil
		}
		if got, err := (poll.Poll[int]{Get: c.get, Done: done}).Wait(t.Context()); got != 2 || err != failed {
			t.Errorf("a failed answer: got %d, %v; want 2 and Done's error", got, err)
		}
	})
}

func ExampleBackoff() {
	every := poll.Backoff(500*time.Millisecond, 3*time.Second)
	for n := 1; n <= 6; n++ {
		fmt.Println(every(n))
	}
	// Output:
	// 500ms
	// 750ms
	// 1.125s
	// 1.6875s
	// 2.53125s
	// 3s
}

// A wait for a job that is done on its third look, within a minute.
func ExamplePoll_Wait() {
	looks := 0
	state, err := poll.Poll[string]{
		Every: poll.Constant(time.Millisecond),
		Get: func(context.Context) (string, error) {
			looks++
			if looks < 3 {
				return "running", nil
			}
			return "complete", nil
		},
		Done: func(state string) (bool, error) {
			if state == "error" {
				return true, errors.New("the job failed")
			}
			return state == "complete", nil
		},
		Deadline: time.Now().Add(time.Minute),
	}.Wait(context.Background())
	fmt.Println(state, err, looks)
	// Output: complete <nil> 3
}
