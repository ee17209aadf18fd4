package builders

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/client/poll"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Every wait of every command is one Await: a poll (client/poll) that
// says what to look at and when it is done, and what Await adds for a
// person and a script: the deadline, when running out of it is forgiven
// (--async pause), a line on a terminal when what is seen changes, and
// the one way a wait ends at its deadline (exit 124, "X did not … within
// D (last state: S)", or under --async pause the same words as a
// still_waiting note).

// Bound says which deadline a wait keeps.
type Bound int

const (
	// CommandDeadline is --timeout, else the --async budget (pause 60s,
	// block 1h; continue 0: look once, do not wait).
	CommandDeadline Bound = iota
	// TimeoutOnly is --timeout alone, no deadline without it: a wait that
	// --async does not bound (an agent operation, which the server ends
	// at its own --deadline; its command's exit code is what was asked).
	TimeoutOnly
)

// Said is what a wait tells people about the last answer (nil before the
// first): the progress line when it changes, and the deadline's words.
type Said struct {
	// Subject names what is waited for: "instance web1".
	Subject string
	// Unmet says what did not happen by the deadline: "did not reach
	// state created".
	Unmet string
	// State is the answer's state ("last state: …"); Left says what is
	// left instead, when that is not a state ("3 instances left").
	State, Left string
	// Later says how to follow it after --async pause gave up waiting:
	// "\"shakectl instance await web1\" waits for it".
	Later string
}

// Wait is one Await. It holds the state of one wait: use it once.
type Wait[T any] struct {
	// Poll says how to look at what is waited for and when it is done;
	// its Every defaults to the resources' backoff (0.5s growing to 3s)
	// and its Deadline is Await's to set.
	Poll poll.Poll[*T]
	// Last is the answer in hand (a create's), judged before the first
	// look; nil means look first.
	Last *T
	// Start is when the deadline starts counting (the command's start, so
	// that the requests before the wait count too; several waits of one
	// command share one budget); zero means when the wait starts.
	Start time.Time
	// Bound says which deadline the wait keeps.
	Bound Bound
	// OnTimeout says what running out of the --async budget does:
	// cmdutil.TimeoutForgiven (--async pause's promise) ends the wait with
	// no error and a still_waiting note; an explicit --timeout is never
	// forgiven (Session.Forgives).
	OnTimeout cmdutil.OnTimeout
	// Say describes the last answer.
	Say func(last *T) Said
}

// Await waits as w says, within the session's context (Ctrl-C, and the
// command's --timeout) and w's deadline, and returns the last answer seen
// (nil when none came) with how the wait ended: nil; the poll's own
// error (an error state, a failed operation, a request that failed); the
// interrupt; a *cmdutil.WaitTimeoutError at the deadline (exit 124); or,
// when the deadline is forgiven, nil after a still_waiting note.
func Await[T any](s *cmdutil.Session, w Wait[T]) (*T, error) {
	budget := s.Cfg.Deadline()
	if w.Bound == TimeoutOnly {
		budget = s.Cfg.Timeout
	}
	if w.Start.IsZero() {
		w.Start = time.Now()
	}
	p := w.Poll
	if p.Every == nil {
		p.Every = poll.Backoff(500*time.Millisecond, 3*time.Second)
	}
	if budget > 0 || w.Bound == CommandDeadline {
		p.Deadline = w.Start.Add(budget)
	}
	// A person at a terminal sees each change after the first answer.
	seen, shown := false, ""
	done := p.Done
	p.Done = func(v *T) (bool, error) {
		said := w.Say(v)
		now := said.State + said.Left
		if seen && now != shown {
			s.Progress("%s: %s", said.Subject, now)
		}
		seen, shown = true, now
		return done(v)
	}
	var (
		last *T
		err  error
	)
	if w.Last != nil {
		last, err = p.WaitFrom(s.Ctx, w.Last)
	} else {
		last, err = p.Wait(s.Ctx)
	}
	if !errors.Is(err, poll.ErrDeadline) && !errors.Is(err, cmdutil.ErrTimeout) {
		return last, err
	}
	said := w.Say(last)
	timeout := &cmdutil.WaitTimeoutError{What: said.Subject + " " + said.Unmet, State: client.State(said.State), Left: said.Left, Budget: budget}
	if w.Bound == TimeoutOnly || !s.Forgives(w.OnTimeout) {
		return last, timeout
	}
	msg := timeout.Error()
	if said.Later != "" {
		msg += "; " + said.Later
	}
	s.Note("still_waiting", "%s", msg)
	return last, nil
}

// Watched describes how to look at one kind of resource for ForState
// (instance create/delete/await, network create/delete).
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
// out the deadline for it, as await once did while its own message said
// "powered off", helps nobody.
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

// ForState is the wait for a resource of w's kind named ref to reach
// target, or a state enough says is good enough (instance create's "left
// initial" under --async pause; nil: target alone). An error state, or a
// deletion while waiting for anything else, ends it with
// *cmdutil.InstanceFailedError, and a target that can never be reached
// with *NeverReadyError. Waiting for "deleted" also ends well when the
// resource disappears (404). Once an answer names the resource's UUID,
// the wait looks it up by UUID. The caller sets Start, Last and
// OnTimeout.
func ForState[T any](w Watched[T], ref string, target client.State, enough func(client.State) bool) Wait[T] {
	name := ref
	learn := func(v *T) {
		uuid, n := w.ident(v)
		if uuid != "" {
			ref = uuid
		}
		if n != "" {
			name = n
		}
	}
	var (
		last *T
		gone bool
	)
	return Wait[T]{
		Poll: poll.Poll[*T]{
			Get: func(ctx context.Context) (*T, error) {
				v, err := w.get(ctx, ref)
				var apiErr *client.APIError
				if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && target == client.StateDeleted && last != nil {
					// Gone: a hard-deleted object is no longer found.
					gone = true
					return last, nil
				}
				return v, err
			},
			Done: func(v *T) (bool, error) {
				last = v
				learn(v)
				state := w.state(v)
				if gone {
					return true, nil
				}
				if w.never != nil {
					if why := w.never(v); why != "" {
						return true, &NeverReadyError{Kind: w.kind, Ref: name, Target: target, Why: why}
					}
				}
				switch {
				case state == target:
					return true, nil
				case state.IsError() || state == client.StateDeleted:
					return true, &cmdutil.InstanceFailedError{Kind: w.kind, Ref: name, State: state, Message: w.errorMessage(v)}
				}
				return enough != nil && enough(state), nil
			},
		},
		Say: func(v *T) Said {
			said := Said{Unmet: "did not reach state " + string(target)}
			if v != nil {
				learn(v)
				said.State = string(w.state(v))
			}
			said.Subject = w.kind + " " + name
			said.Later = fmt.Sprintf("\"shakectl %s show %s\" shows it", w.kind, name)
			if w.kind == "instance" {
				said.Later = fmt.Sprintf("\"shakectl instance await %s --state %s\" waits for it", name, target)
			}
			return said
		},
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
	wait := ForState(w, ref, target, nil)
	wait.Start, wait.Last, wait.OnTimeout = start, last, s.Cfg.Async.OnTimeout()
	return Await(s, wait)
}
