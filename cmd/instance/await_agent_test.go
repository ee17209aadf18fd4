package instance_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The instance sf-client 0.8 created against the real 2024 server
// (captures da448b1a sfclient/0097, testdata/sf2024/instance_no_agent.json)
// has side_channels [] and agent_state null: it has no agent, so instance
// await (the agent, by default) fails at once with the reason, exit 1,
// where sf-client 0.8.x would wait for "created" and then crash on
// agent_state null.
func TestAwaitAgentOfRecordedInstanceWithoutAgent(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "GET", "/instances/i-sf", 200, "sf2024/instance_no_agent.json")
	res := clitest.AgainstStubs(fa).Run(t, "instance", "await", "i-sf", "--timeout", "1m")
	if res.Code != cmdutil.ExitFailure || !strings.HasPrefix(res.Stderr, "error: instance i-sf will never reach agent ready: it has no sf-agent side channel") {
		t.Fatal(res)
	}
	if n := len(fa.Requests()); n > 3 {
		t.Errorf("%d requests: the wait should end at the first answer", n)
	}
	// --for state waits for the state instead, and --for agent with
	// --state is refused.
	res = clitest.AgainstStubs(fa).Run(t, "instance", "await", "i-sf", "--for", "agent", "--state", "created")
	if res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
}
