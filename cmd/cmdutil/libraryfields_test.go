package cmdutil

import (
	"fmt"
	"testing"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/fielderr/fieldertest"
	"github.com/shakenfist/shakectl/output"
)

// Every {Field} the client's and output's messages and hints name has a
// flag here, so the error report never shows a Go field path. A new
// placeholder fails until the kernel names its flag.
func TestEveryLibraryFieldHasAFlag(t *testing.T) {
	t.Parallel()
	fieldertest.EveryFieldNamed(t, libraryOptionName, 6, "../../client", "../../output")
}

// A --jq bound that stops the evaluation reaches the report wrapped in
// the command's context; its words are the flag's, as before.
func TestDescribeErrorRendersWrappedJQLimit(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("listing: %w", &output.JQLimitError{Reason: "it ran for 30s, the most {JQ} may take"})
	if got, want := DescribeError(err).Message, "listing: --jq stopped: it ran for 30s, the most --jq may take"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// The client's hints that advise on an option, and the two the kernel
// writes itself (a command line, the command's help), in the words users
// read, rendered with the kernel's flags.
func TestHintsNameTheFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  *client.APIError
		want string
	}{
		{&client.APIError{StatusCode: 406, Method: "POST", URL: "http://api/instances", Message: "network is not ready"},
			"something the request depends on is not ready yet (a network still initial, an instance not created); wait for it, or give a longer --timeout or --async block"},
		{&client.APIError{StatusCode: 404, Method: "POST", URL: "http://api/instances", Route: "/instances", Message: "node not found"},
			"the node (--placement) does not exist, is not ready, or is not a candidate; \"shakectl node list\" shows the nodes"},
		{&client.APIError{StatusCode: 400, Method: "DELETE", URL: "http://api/auth/namespaces/ns", Message: "you cannot delete a namespace with instances or networks"},
			"the namespace still holds instances or networks; \"shakectl namespace clean NAMESPACE --yes\" deletes them, then delete the namespace"},
		{&client.APIError{StatusCode: 400, Method: "POST", URL: "http://api/instances", Message: "disk[0].size: must be positive"},
			"the server refused the parameter disk[0].size; see --help for what it takes"},
		{&client.APIError{StatusCode: 400, Method: "POST", URL: "http://api/instances", Message: "bad request"},
			"the server refused the request's parameters"},
	} {
		if got := DescribeError(c.err).Hint; got != c.want {
			t.Errorf("%d %q: hint %q, want %q", c.err.StatusCode, c.err.Message, got, c.want)
		}
	}
	for _, c := range []struct {
		refusal  client.CapacityRefusal
		attempts int
		want     string
	}{
		{client.CapacityRefusal{Stage: "sufficient_idle_cpu", Transient: true, NotReplayable: "a replay could double it"}, 1,
			"the server marks this refusal transient (stage sufficient_idle_cpu), but a replay could double it, so --retry-transient-capacity does not retry it: check what the server holds before sending it again"},
		{client.CapacityRefusal{Stage: "sufficient_idle_cpu", Transient: true}, 5,
			"the cluster is still short of capacity at stage sufficient_idle_cpu after 5 attempts, the most --retry-transient-capacity sends; try again later"},
		{client.CapacityRefusal{Stage: "sufficient_idle_cpu", Transient: true}, 2,
			"the cluster is still short of capacity at stage sufficient_idle_cpu; try again later or give a longer --timeout"},
		{client.CapacityRefusal{Stage: "sufficient_idle_cpu", Transient: true}, 1,
			"the cluster is short of capacity at stage sufficient_idle_cpu right now; --retry-transient-capacity waits and retries as the server suggests"},
		{client.CapacityRefusal{TextStage: "sufficient_idle_memory"}, 1,
			"the cluster is short of capacity at scheduling stage sufficient_idle_memory, which waiting usually fixes; this server (older than the stage/transient contract) does not mark it, so --retry-transient-capacity does not retry it: try again later"},
		{client.CapacityRefusal{Stage: "is_hypervisor"}, 1,
			"no candidate node is a hypervisor; check --placement and \"shakectl node list\""},
		{client.CapacityRefusal{Stage: "pre_schedule"}, 1,
			"there were no candidate nodes to place on; check --placement and \"shakectl node list\""},
		{client.CapacityRefusal{Message: "No hypervisor with metrics"}, 1,
			"no hypervisor has reported its metrics (none is up, or --placement names a node that is not one); \"shakectl node list\" shows the nodes"},
		// A server's stage is its text, never an option to render.
		{client.CapacityRefusal{Stage: "{Retry}", Transient: true}, 1,
			"the cluster is short of capacity at stage {Retry} right now; --retry-transient-capacity waits and retries as the server suggests"},
	} {
		if got := c.refusal.Hint(c.attempts, libraryOptionName); got != c.want {
			t.Errorf("%+v after %d: hint %q, want %q", c.refusal, c.attempts, got, c.want)
		}
	}
}
