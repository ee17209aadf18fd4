package client

import "strings"

// State is an object's lifecycle state as the server reports it: the
// instance states of shakenfist da448b1a (objects/instance.py) and the
// network states of objects/network.py.
type State string

// The lifecycle states. Instances use all of them; networks use initial,
// created, delete-wait, deleted and error.
const (
	StateInitial    State = "initial"
	StatePreflight  State = "preflight" // an instance between initial and creating
	StateCreating   State = "creating"
	StateCreated    State = "created"
	StateDeleteWait State = "delete-wait"
	StateDeleted    State = "deleted"
	StateError      State = "error"

	StateInitialError    State = "initial-error"
	StatePreflightError  State = "preflight-error"
	StateCreatingError   State = "creating-error"
	StateCreatedError    State = "created-error"
	StateDeleteWaitError State = "delete-wait-error"
)

// InstanceStates are every state an instance can be in, in lifecycle order.
func InstanceStates() []State {
	return []State{
		StateInitial, StatePreflight, StateCreating, StateCreated, StateDeleteWait, StateDeleted,
		StateError, StateInitialError, StatePreflightError, StateCreatingError, StateCreatedError, StateDeleteWaitError,
	}
}

// NetworkStates are every state a network can be in, in lifecycle order.
func NetworkStates() []State {
	return []State{StateInitial, StateCreated, StateDeleteWait, StateDeleted, StateError}
}

// IsError says the object failed: "error" and every "<state>-error"
// (shakenfist da448b1a: the state a failure happened in, with -error).
func (s State) IsError() bool { return s == StateError || strings.HasSuffix(string(s), "-error") }

// LeftInitial says the object is no longer being created, whatever it
// became: not initial, preflight or creating (nor unknown, "").
func (s State) LeftInitial() bool {
	return s != StateInitial && s != StatePreflight && s != StateCreating && s != ""
}

// Lifecycle is the instance's state.
func (i *Instance) Lifecycle() State { return State(i.State) }

// Lifecycle is the network's state.
func (n *Network) Lifecycle() State { return State(n.State) }

// AgentReady says whether the instance's agent is ready, as the server
// itself decides before an agent operation (instance.py: agent_state
// starts with "ready"; "ready (degraded)" counts).
func (i *Instance) AgentReady() bool {
	return i.AgentState != nil && strings.HasPrefix(*i.AgentState, "ready")
}

// HasAgentChannel says whether the instance was created with the agent's
// side channel (sf-client's await checks for "sf-agent"). A view without
// side_channels (null) has none.
func (i *Instance) HasAgentChannel() bool {
	for _, c := range i.SideChannels {
		if c == "sf-agent" {
			return true
		}
	}
	return false
}
