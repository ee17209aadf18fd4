package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
)

// Polling an instance's state starts fast (a create usually settles in a
// second or two) and backs off so a long wait costs the API little.
const (
	firstPoll = 500 * time.Millisecond
	maxPoll   = 3 * time.Second
)

// NewCmdInstanceAwait builds `shakectl instance await`.
func NewCmdInstanceAwait(f *Factory) *cobra.Command {
	var state string
	c := &cobra.Command{
		Use:   "await INSTANCE",
		Short: "Wait until an instance reaches a state (default: created)",
		Long: `Wait until an instance, named by UUID or name, reaches a state, then print it.

The wait is bounded by the deadline: --timeout, else the --async budget
(pause 60s, block 1h, continue 0 = look once). When it runs out the command
fails with exit code 124. An instance that lands in an error state (error,
or any "<x>-error") or is deleted while waiting for something else fails
the command at once (exit code 1) with the server's error message. Waiting
for "deleted" also succeeds when the instance disappears (404) while waited
for.`,
		Example: `  shakectl instance await web1
  shakectl instance await web1 --state deleted --timeout 2m
  shakectl instance create web1 2 2048 -d 20 --async continue && shakectl instance await web1 --async block`,
		Args:              refArgs("INSTANCE"),
		ValidArgsFunction: argsAccepted(completeInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			state = strings.TrimSpace(state)
			if state == "" {
				return usageErrorf("--state must not be empty")
			}
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			start := time.Now()
			inst, err := s.waitForState(start, nil, args[0], state, untilState(state), false)
			if inst != nil {
				if perr := s.printDetail(instanceDetail(inst)); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	c.Flags().StringVar(&state, "state", "created", "the state to wait for, e.g. created, deleted, error")
	return c
}

// untilState is done when the state is exactly target.
func untilState(target string) func(string) bool {
	return func(s string) bool { return s == target }
}

// leftInitial is --async pause's condition for a create: the instance is no
// longer initial or creating, whatever it became.
func leftInitial(s string) bool { return s != "initial" && s != "creating" && s != "" }

func isErrorState(s string) bool { return s == "error" || strings.HasSuffix(s, "-error") }

// InstanceFailedError is an instance that reached an error state, or was
// deleted, while a command waited for something else.
type InstanceFailedError struct {
	Ref     string
	State   string
	Message string // the server's error_message, if any
}

func (e *InstanceFailedError) Error() string {
	msg := fmt.Sprintf("instance %s is in state %s", e.Ref, e.State)
	if e.State == "deleted" {
		msg = fmt.Sprintf("instance %s was deleted", e.Ref)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// waitForState polls an instance until done(state), within the command's
// deadline counted from start (--timeout, else the async budget). last is
// what the caller already knows (the create's answer), or nil.
//
// lenient is --async pause's promise: running out of time is not an error,
// the instance is returned as it is. Otherwise it is a *TimeoutError (exit
// 124). An error state, or a deletion while waiting for anything else,
// ends the wait with *InstanceFailedError.
func (s *session) waitForState(start time.Time, last *client.Instance, ref, target string, done func(string) bool, lenient bool) (*client.Instance, error) {
	budget := s.cfg.Deadline()
	ctx, cancel := withDeadline(s.f.Context, max(budget-time.Since(start), time.Nanosecond))
	defer cancel()
	if budget <= 0 {
		// --async continue without --timeout: look once, do not wait.
		ctx, cancel = context.WithCancel(s.f.Context)
		defer cancel()
	}

	name := ref
	poll := firstPoll
	lastState := ""
	for {
		if last != nil {
			if last.UUID != "" {
				ref = last.UUID
			}
			if last.Name != "" {
				name = last.Name
			}
			if last.State != lastState {
				if lastState != "" {
					s.progress("instance %s: %s", name, last.State)
				}
				lastState = last.State
			}
			switch {
			case last.State == target:
				return last, nil
			case isErrorState(last.State) || last.State == "deleted":
				return last, &InstanceFailedError{Ref: name, State: last.State, Message: last.ErrorMessage}
			case done(last.State):
				return last, nil
			}
			if budget <= 0 {
				return last, s.waitTimeout(name, target, last.State, budget, lenient)
			}
			timer := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				timer.Stop()
				return last, s.waitEnded(ctx, name, target, last.State, budget, lenient)
			case <-timer.C:
			}
			poll = min(poll*3/2, maxPoll)
		}
		got, err := s.client.GetInstance(ctx, ref)
		var apiErr *client.APIError
		switch {
		case err == nil:
			last = got
		case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && target == "deleted" && last != nil:
			gone := *last
			gone.State = "deleted"
			return &gone, nil
		case ctx.Err() != nil && s.f.Context.Err() == nil:
			state := ""
			if last != nil {
				state = last.State
			}
			return last, s.waitEnded(ctx, name, target, state, budget, lenient)
		default:
			return last, err
		}
	}
}

// waitEnded explains why a wait stopped: the deadline (a timeout, or for
// --async pause no error at all) or an interruption.
func (s *session) waitEnded(ctx context.Context, name, target, state string, budget time.Duration, lenient bool) error {
	if cause := context.Cause(ctx); !errors.Is(cause, ErrTimeout) {
		return cause
	}
	return s.waitTimeout(name, target, state, budget, lenient)
}

func (s *session) waitTimeout(name, target, state string, budget time.Duration, lenient bool) error {
	if lenient {
		if !s.cfg.Quiet {
			fmt.Fprintf(s.f.IOStreams.ErrOut, "instance %s is still %s after %s; \"shakectl instance await %s\" waits for it\n", name, orUnknown(state), budget, name)
		}
		return nil
	}
	return &WaitTimeoutError{What: fmt.Sprintf("instance %s did not reach state %s", name, target), State: state, Budget: budget}
}

// WaitTimeoutError is a wait that ran out of its deadline; it matches
// ErrTimeout (exit 124).
type WaitTimeoutError struct {
	What   string
	State  string
	Budget time.Duration
}

func (e *WaitTimeoutError) Error() string {
	msg := fmt.Sprintf("%s within %s", e.What, e.Budget)
	if e.State != "" {
		msg += fmt.Sprintf(" (last state: %s)", e.State)
	}
	return msg
}

func (e *WaitTimeoutError) Is(target error) bool { return target == ErrTimeout }
