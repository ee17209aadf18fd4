package instance

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/output/termtext"
)

// agentFlags are --deadline and --progress-timeout of upload and download
// (2026: deadline_seconds, progress_timeout_seconds).
type agentFlags struct {
	deadline, progress, poll time.Duration
}

func (a *agentFlags) add(c *cobra.Command) {
	addDeadlineFlag(c, &a.deadline)
	numflag.Var(c.Flags(), &a.progress, "progress-timeout", 0, numflag.Between(0, maxAgentDeadline), "end it when the transfer makes no progress for this long (2026 servers)")
	addPollFlag(c, &a.poll)
}

// maxAgentDeadline bounds an agent operation's deadlines as the 2026
// server does (deadline_seconds 0–86400, shakenfist-2026.md 2.4).
const maxAgentDeadline = 24 * time.Hour

// addDeadlineFlag is execute's, upload's and download's --deadline.
func addDeadlineFlag(c *cobra.Command, d *time.Duration) {
	numflag.Var(c.Flags(), d, "deadline", 0, numflag.Between(0, maxAgentDeadline), "end the operation on the server after this long (2026 servers)")
}

// addPollFlag is their --poll: often enough to see the end soon, seldom
// enough to spare the API.
func addPollFlag(c *cobra.Command, poll *time.Duration) {
	numflag.Var(c.Flags(), poll, "poll", time.Second, numflag.Between(time.Millisecond, time.Minute), "how often to read the operation while it runs")
}

func (a *agentFlags) request(c *cobra.Command) (client.TransferRequest, error) {
	var t client.TransferRequest
	for name, d := range map[string]*time.Duration{"deadline": &a.deadline, "progress-timeout": &a.progress} {
		if c.Flags().Changed(name) {
			if name == "deadline" {
				t.Deadline = d
			} else {
				t.ProgressTimeout = d
			}
		}
	}
	return t, nil
}

// awaitAgentOp waits for the operation and turns its end into an error:
// expired exits 124 with the reason, anything but complete fails.
func awaitAgentOp(s *cmdutil.Session, start time.Time, op *client.AgentOperation, poll time.Duration) (*client.AgentOperation, error) {
	op, err := waitAgentOp(s, start, op, poll)
	if err != nil {
		return op, err
	}
	switch op.State {
	case client.AgentOpComplete:
		return op, nil
	case client.AgentOpExpired:
		reason := "deadline"
		if op.ExpiryReason != nil {
			reason = *op.ExpiryReason
		}
		return op, &cmdutil.ExitStatusError{Code: cmdutil.ExitTimeout, Err: fmt.Errorf("agent operation %s expired (%s)", op.UUID, reason)}
	}
	// An operation in error says why in the failed step's message (the
	// agent's "path does not exist").
	keys := slices.Sorted(maps.Keys(op.Results))
	for _, k := range keys {
		if r := op.Results[k]; r.Failed() && r.Message != "" {
			return op, fmt.Errorf("agent operation %s ended %s: step %s: %s", op.UUID, op.State, k, termtext.Line(r.Message))
		}
	}
	return op, fmt.Errorf("agent operation %s ended %s", op.UUID, op.State)
}

// waitAgentOp polls the operation every poll until it ends, from the
// answer that started it. Only the command's --timeout, counted from
// start, bounds the wait (--async does not: the command's result is the
// guest command's, and the server ends the operation at its own
// --deadline); running out ends it as every wait ends, exit 124 naming
// the operation and its last state.
func waitAgentOp(s *cmdutil.Session, start time.Time, op *client.AgentOperation, poll time.Duration) (*client.AgentOperation, error) {
	subject := "agent operation " + op.UUID
	return builders.Await(s, builders.Wait[client.AgentOperation]{
		Poll:  s.Client.AgentOperationPoll(op.UUID, poll),
		Last:  op,
		Start: start,
		Bound: builders.TimeoutOnly,
		Say: func(o *client.AgentOperation) builders.Said {
			said := builders.Said{Subject: subject, Unmet: "did not end"}
			if o != nil {
				said.State = o.State
			}
			return said
		},
	})
}
