package cmdutil

import (
	"fmt"
	"time"

	"github.com/shakenfist/shakectl/client"
)

// The errors a wait ends with (cmd/builders' Await, which every wait of
// every command runs): the kernel's types, so DescribeError and
// ExitCode know them without importing the builders.

// InstanceFailedError is a resource (an instance, or a network when Kind
// says so) that reached an error state, or was deleted, while a command
// waited for something else.
type InstanceFailedError struct {
	Kind    string // "" means instance
	Ref     string
	State   client.State
	Message string // the server's error_message, if any
}

func (e *InstanceFailedError) kind() string {
	if e.Kind == "" {
		return "instance"
	}
	return e.Kind
}

func (e *InstanceFailedError) Error() string {
	msg := fmt.Sprintf("%s %s is in state %s", e.kind(), e.Ref, e.State)
	if e.State == client.StateDeleted {
		msg = fmt.Sprintf("%s %s was deleted", e.kind(), e.Ref)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// WaitTimeoutError is a wait that ran out of its deadline; it matches
// ErrTimeout (exit 124).
type WaitTimeoutError struct {
	What   string
	State  client.State
	Budget time.Duration
	// Left says what was still to happen, when that is not a state.
	Left string
}

func (e *WaitTimeoutError) Error() string {
	msg := fmt.Sprintf("%s within %s", e.What, e.Budget)
	if e.State != "" {
		msg += fmt.Sprintf(" (last state: %s)", e.State)
	}
	if e.Left != "" {
		msg += " (" + e.Left + ")"
	}
	return msg
}

func (e *WaitTimeoutError) Is(target error) bool { return target == ErrTimeout }
