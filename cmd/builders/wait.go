package builders

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Polling a resource's state starts fast (a create usually settles in a
// second or two) and backs off so a long wait costs the API little.
const (
	firstPoll = 500 * time.Millisecond
	maxPoll   = 3 * time.Second
)

// Watched describes how to poll one kind of resource: the one waiting
// model of shakectl (instance create/delete/await, network create/delete).
type Watched[T any] struct {
	kind  string // "instance", "network"
	get   func(ctx context.Context, ref string) (*T, error)
	state func(*T) client.State
	// ident is the resource's UUID and name ("" when unknown).
	ident func(*T) (uuid, name string)
	// errorMessage is the server's explanation of an error state, if any.
	errorMessage func(*T) string
	// never, when set, says why the target can never be reached (""
	// while it still can): the wait ends at once with *NeverReadyError.
	never func(*T) string
}

var WatchedInstance = func(c *client.Client) Watched[client.Instance] {
	return Watched[client.Instance]{
		kind: "instance", get: c.GetInstance,
		state:        (*client.Instance).Lifecycle,
		ident:        func(i *client.Instance) (string, string) { return i.UUID, i.Name },
		errorMessage: func(i *client.Instance) string { return i.ErrorMessage },
	}
}

// AgentReadyState is the condition an agent wait ends at: the instance
// is created and its agent says it is ready (client.Instance.AgentReady).
const AgentReadyState client.State = "agent ready"

// WatchedInstanceAgent watches an instance until its in-guest agent is
// ready, as sf-client's instance await (client-python 6c25293c apiclient.py
// await_agent_ready) does: first the instance's state until created, then
// agent_state until it starts with "ready". An error state or a deletion
// ends the wait as for any instance wait, and so does an instance without
// the sf-agent side channel (sf-client: "instance does not have agent side
// channel"). While created and not ready the state shown is "created,
// agent <agent_state>".
var WatchedInstanceAgent = func(c *client.Client) Watched[client.Instance] {
	w := WatchedInstance(c)
	w.state = func(i *client.Instance) client.State {
		switch {
		case i.Lifecycle() != client.StateCreated:
			return i.Lifecycle()
		case i.AgentReady():
			return AgentReadyState
		case i.AgentState == nil:
			return "created, agent not heard from yet"
		}
		return client.State("created, agent " + *i.AgentState)
	}
	w.never = func(i *client.Instance) string {
		switch {
		case i.Lifecycle().IsError() || i.Lifecycle() == client.StateDeleted:
			return ""
		case !i.HasAgentChannel():
			return "it has no sf-agent side channel, so it has no agent to wait for"
		case i.Lifecycle() == client.StateCreated:
			return powerStopsAgent(i)
		}
		return ""
	}
	return w
}

// powerStopsAgent says why an instance's agent cannot become ready while
// nothing else acts on it, "" when it can: the instance is powered off,
// paused or crashed (power_state off, paused, crashed; shakenfist da448b1a
// sets agent_state "not ready (instance powered off)" and "not ready
// (instance paused)", constants.py AGENT_INSTANCE_OFF/_PAUSED). Waiting
// out the deadline for it (issue 40, item 12: await waited out --timeout
// while its own message said "powered off") helps nobody.
func powerStopsAgent(i *client.Instance) string {
	agent, ref := "", i.Name
	if i.AgentState != nil {
		agent = *i.AgentState
	}
	if ref == "" {
		ref = i.UUID
	}
	switch {
	case i.PowerState == "off" || agent == "not ready (instance powered off)":
		return fmt.Sprintf("it is powered off (power_state %s, agent %q): \"shakectl instance poweron %s\" first", client.OrNone(i.PowerState), agent, ref)
	case i.PowerState == "paused" || agent == "not ready (instance paused)":
		return fmt.Sprintf("it is paused (power_state %s, agent %q): \"shakectl instance unpause %s\" first", client.OrNone(i.PowerState), agent, ref)
	case i.PowerState == "crashed":
		return fmt.Sprintf("it has crashed (power_state crashed): \"shakectl instance reboot %s --hard\" or poweron it first", ref)
	}
	return ""
}

// NeverReadyError is a wait whose condition can never be met (an agent
// wait for an instance without an agent): exit code 1.
type NeverReadyError struct {
	Kind, Ref string
	Target    client.State
	Why       string
}

func (e *NeverReadyError) Error() string {
	return fmt.Sprintf("%s %s will never reach %s: %s", e.Kind, e.Ref, e.Target, e.Why)
}

var WatchedNetwork = func(c *client.Client) Watched[client.Network] {
	return Watched[client.Network]{
		kind: "network", get: c.GetNetwork,
		state:        (*client.Network).Lifecycle,
		ident:        func(n *client.Network) (string, string) { return n.UUID, n.Name },
		errorMessage: func(*client.Network) string { return "" },
	}
}

// UntilState is done when the state is exactly target.
func UntilState(target client.State) func(client.State) bool {
	return func(s client.State) bool { return s == target }
}

// Wait is one WaitFor: the resource, what is known of it, and what ends
// the wait.
type Wait[T any] struct {
	// Watch says how to poll the kind of resource.
	Watch Watched[T]
	// Ref names the resource; Last is what the caller already knows of
	// it (the create's answer), or nil.
	Ref  string
	Last *T
	// Start is when the command's deadline began (--timeout, else the
	// async budget, counts from it).
	Start time.Time
	// Target is the state waited for. Done, when set, also ends the wait
	// at a state that is good enough (instance create's "left initial");
	// nil means Target alone.
	Target client.State
	Done   func(client.State) bool
	// OnTimeout is what running out of the async budget does:
	// cmdutil.TimeoutForgiven (--async pause's promise) returns the
	// resource as it is; TimeoutFails is a *cmdutil.WaitTimeoutError (exit
	// 124). An explicit --timeout is never forgiven (Session.Forgives).
	OnTimeout cmdutil.OnTimeout
}

// WaitFor polls a resource until it reaches w.Target (or w.Done says
// enough), within the command's deadline counted from w.Start. An error
// state, or a deletion while waiting for anything else, ends the wait with
// *cmdutil.InstanceFailedError. Waiting for "deleted" also ends well when
// the resource disappears (404).
func WaitFor[T any](s *cmdutil.Session, wait Wait[T]) (*T, error) {
	w, start, last, ref, target, done, onTimeout := wait.Watch, wait.Start, wait.Last, wait.Ref, wait.Target, wait.Done, wait.OnTimeout
	if done == nil {
		done = UntilState(target)
	}
	budget := s.Cfg.Deadline()
	ctx, cancel := cmdutil.WithDeadline(s.F.Context, max(budget-time.Since(start), time.Nanosecond))
	defer cancel()
	if budget <= 0 {
		// --async continue without --timeout: look once, do not wait.
		ctx, cancel = context.WithCancel(s.F.Context)
		defer cancel()
	}

	name := ref
	poll := firstPoll
	var lastState client.State
	for {
		if last != nil {
			uuid, n := w.ident(last)
			if uuid != "" {
				ref = uuid
			}
			if n != "" {
				name = n
			}
			state := w.state(last)
			if state != lastState {
				if lastState != "" {
					s.Progress("%s %s: %s", w.kind, name, state)
				}
				lastState = state
			}
			if w.never != nil {
				if why := w.never(last); why != "" {
					return last, &NeverReadyError{Kind: w.kind, Ref: name, Target: target, Why: why}
				}
			}
			switch {
			case state == target:
				return last, nil
			case state.IsError() || state == client.StateDeleted:
				return last, &cmdutil.InstanceFailedError{Kind: w.kind, Ref: name, State: state, Message: w.errorMessage(last)}
			case done(state):
				return last, nil
			}
			if budget <= 0 {
				return last, waitTimeout(s, w.kind, name, target, state, budget, onTimeout)
			}
			timer := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				timer.Stop()
				return last, waitEnded(s, ctx, w.kind, name, target, state, budget, onTimeout)
			case <-timer.C:
			}
			poll = min(poll*3/2, maxPoll)
		}
		got, err := w.get(ctx, ref)
		var apiErr *client.APIError
		switch {
		case err == nil:
			last = got
		case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && target == client.StateDeleted && last != nil:
			// Gone: a hard-deleted object is no longer found.
			return last, nil
		case ctx.Err() != nil && s.F.Context.Err() == nil:
			var state client.State
			if last != nil {
				state = w.state(last)
			}
			return last, waitEnded(s, ctx, w.kind, name, target, state, budget, onTimeout)
		default:
			return last, err
		}
	}
}

// waitEnded explains why a wait stopped: the deadline (a timeout, or for
// --async pause no error at all) or an interruption.
func waitEnded(s *cmdutil.Session, ctx context.Context, kind, name string, target, state client.State, budget time.Duration, onTimeout cmdutil.OnTimeout) error {
	if cause := context.Cause(ctx); !errors.Is(cause, cmdutil.ErrTimeout) {
		return cause
	}
	return waitTimeout(s, kind, name, target, state, budget, onTimeout)
}

func waitTimeout(s *cmdutil.Session, kind, name string, target, state client.State, budget time.Duration, onTimeout cmdutil.OnTimeout) error {
	// --async pause forgives running out of its own budget only: a
	// --timeout the user gave is a promise the README keeps, exit 124
	// whatever --async is, so a script can tell that the wait did not end
	// (issue 28, item 14).
	if s.Forgives(onTimeout) {
		if !s.Cfg.Quiet {
			how := fmt.Sprintf("\"shakectl %s show %s\" shows it", kind, name)
			if kind == "instance" {
				how = fmt.Sprintf("\"shakectl instance await %s --state %s\" waits for it", name, target)
			}
			cmdutil.Note(s.F.IOStreams, s.Cfg, "still_waiting", fmt.Sprintf("%s %s is still %s after %s; %s", kind, name, cmdutil.OrUnknown(string(state)), budget, how))
		}
		return nil
	}
	return &cmdutil.WaitTimeoutError{What: fmt.Sprintf("%s %s did not reach state %s", kind, name, target), State: state, Budget: budget}
}

// WaitUntil polls done, as WaitFor polls one object, until it says yes,
// within the run's async budget (--timeout, else 60s for pause and 1h for
// block; --async continue looks once). what says what did not happen
// ("namespace ci was not emptied") and done what is left, for the
// messages. onTimeout is as for WaitFor: TimeoutForgiven (--async pause's
// promise) forgives the async budget, never an explicit --timeout.
func WaitUntil(s *cmdutil.Session, what string, onTimeout cmdutil.OnTimeout, done func(ctx context.Context) (bool, string, error)) error {
	budget := s.Cfg.Deadline()
	ctx, cancel := cmdutil.WithDeadline(s.F.Context, max(budget, time.Nanosecond))
	defer cancel()
	poll := firstPoll
	for {
		ok, left, err := done(ctx)
		switch {
		case err != nil && ctx.Err() != nil && s.F.Context.Err() == nil:
		case err != nil:
			return err
		case ok:
			return nil
		}
		if budget <= 0 {
			return nil
		}
		timer := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			timer.Stop()
			if cause := context.Cause(ctx); !errors.Is(cause, cmdutil.ErrTimeout) {
				return cause
			}
			// An explicit --timeout is never forgiven (exit 124), as in
			// waitTimeout: a script that set one must learn it ran out.
			if s.Forgives(onTimeout) {
				if !s.Cfg.Quiet {
					fmt.Fprintf(s.F.IOStreams.ErrOut, "%s within %s (%s)\n", what, budget, left)
				}
				return nil
			}
			return &cmdutil.WaitTimeoutError{What: what, Budget: budget, Left: left}
		case <-timer.C:
		}
		poll = min(poll*3/2, maxPoll)
		s.Progress("still %s", left)
	}
}

// AwaitAsync waits as --async says until last (the server's answer about
// ref) reaches target: pause waits leniently, block strictly, continue not
// at all; an answer already at target is not polled. Instance and network
// delete share it.
func AwaitAsync[T any](s *cmdutil.Session, w Watched[T], start time.Time, last *T, ref string, target client.State) (*T, error) {
	if !s.Cfg.Async.Waits() || w.state(last) == target {
		return last, nil
	}
	return WaitFor(s, Wait[T]{Watch: w, Start: start, Last: last, Ref: ref, Target: target, OnTimeout: s.Cfg.Async.OnTimeout()})
}
