package instance

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output/termtext"
)

// agentFlags are --deadline and --progress-timeout of upload and download
// (2026: deadline_seconds, progress_timeout_seconds).
type agentFlags struct {
	deadline, progress, poll time.Duration
}

func (a *agentFlags) add(c *cobra.Command) {
	c.Flags().DurationVar(&a.deadline, "deadline", 0, "end the operation on the server after this long (2026 servers)")
	c.Flags().DurationVar(&a.progress, "progress-timeout", 0, "end it when the transfer makes no progress for this long (2026 servers)")
	c.Flags().DurationVar(&a.poll, "poll", time.Second, "how often to read the operation while it runs")
}

func (a *agentFlags) request(c *cobra.Command) (client.TransferRequest, error) {
	var t client.TransferRequest
	for name, d := range map[string]*time.Duration{"deadline": &a.deadline, "progress-timeout": &a.progress} {
		if c.Flags().Changed(name) {
			if *d < 0 {
				return t, cmdutil.UsageErrorf("--%s must not be negative", name)
			}
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
func awaitAgentOp(s *cmdutil.Session, op *client.AgentOperation, poll time.Duration) (*client.AgentOperation, error) {
	op, err := s.Client.WaitAgentOperation(s.Ctx, op, poll)
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
