package client

import "testing"

// The predicates the waits rely on, over every state the server has.
func TestStatePredicates(t *testing.T) {
	for _, s := range InstanceStates() {
		wantError := s == StateError || s == StateInitialError || s == StatePreflightError ||
			s == StateCreatingError || s == StateCreatedError || s == StateDeleteWaitError
		if got := s.IsError(); got != wantError {
			t.Errorf("%s.IsError() = %v", s, got)
		}
		wantLeft := s != StateInitial && s != StatePreflight && s != StateCreating
		if got := s.LeftInitial(); got != wantLeft {
			t.Errorf("%s.LeftInitial() = %v", s, got)
		}
	}
	if State("").LeftInitial() {
		t.Error("an unknown state counts as having left initial")
	}
	for _, s := range NetworkStates() {
		found := false
		for _, i := range InstanceStates() {
			found = found || i == s
		}
		if !found {
			t.Errorf("network state %s is not among the instance states", s)
		}
	}
}
