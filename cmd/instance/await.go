package instance

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// Conditions instance await waits for.
const (
	awaitAgent = "agent"
	awaitState = "state"
)

// NewCmdAwait builds `shakectl instance await`.
func NewCmdAwait(f *cmdutil.Factory) *cobra.Command {
	var state, cond string
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "await",
		Short: "Wait until an instance's agent is ready (or, with --state, a state)",
		Long: `Wait until an instance, named by UUID or name, is ready, then print it.

By default (--for agent) this is sf-client's instance await: the instance
must reach "created" and then its in-guest agent must report ready
(agent_state "ready" or "ready (degraded)"), which is what "instance
execute", "upload" and "download" need. An instance created without the
sf-agent side channel has no agent: the command fails at once (exit 1).
So does a created instance that is powered off, paused or crashed
(power_state off, paused, crashed): its agent cannot become ready until
someone powers it on, and the error says how.

--state S (or --for state, whose state is "created") waits for an instance
state instead, as shakectl's await did before: e.g. --state deleted.
"preflight" counts as still being created. Waiting for "deleted" also
succeeds when the instance disappears (404) while waited for.

An instance that lands in an error state (error, or any "<x>-error" such as
created-error) or is deleted while waiting for something else fails the
command at once (exit code 1) with the server's error message.

The wait is bounded by the deadline: --timeout, else the --async budget
(pause 60s, block 1h, continue 0 = look once). When it runs out the command
fails with exit code 124. This differs from sf-client, which polls every 5s
for up to 600s whatever --async says: a guest that takes longer than a
minute to boot needs --timeout 10m (or --async block) here.`,
		Example: `  shakectl instance await web1
  shakectl instance await web1 --timeout 10m && shakectl instance execute web1 'uptime'
  shakectl instance await web1 --state deleted --timeout 2m
  shakectl instance create web1 2 2048 -d 20 --async continue && shakectl instance await web1 --for state --async block`,
	}, func(s *cmdutil.Session, args []string) error {
		c := s.F.Command
		state = strings.TrimSpace(state)
		stateGiven := c.Flags().Changed("state")
		switch {
		case cond != awaitAgent && cond != awaitState:
			return cmdutil.UsageErrorf("--for %q: want agent or state", cond)
		case stateGiven && c.Flags().Changed("for") && cond == awaitAgent:
			return cmdutil.UsageErrorf("--state waits for an instance state, --for agent for its agent: give one")
		case stateGiven:
			cond = awaitState
		}
		if cond == awaitState {
			if state == "" {
				return cmdutil.UsageErrorf("--state must not be empty")
			}
			if !slices.Contains(client.InstanceStates(), client.State(state)) {
				return cmdutil.UsageErrorf("--state %q is not an instance state; want one of %s", state, strings.Join(stateNames(), ", "))
			}
		}

		start := time.Now()
		w, target := builders.WatchedInstance(s.Client), client.State(state)
		if cond == awaitAgent {
			w, target = builders.WatchedInstanceAgent(s.Client), builders.AgentReadyState
		}
		wait := builders.ForState(w, args[0], target, nil)
		wait.Start = start
		inst, err := builders.Await(s, wait)
		if inst != nil {
			if perr := s.PrintDetail(instanceDetail(inst)); perr != nil && err == nil {
				err = perr
			}
		}
		return err
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	c.Flags().StringVar(&cond, "for", awaitAgent, "what to wait for: agent (its in-guest agent is ready, as sf-client) or state (--state)")
	c.Flags().StringVar(&state, "state", "created", "the state to wait for, e.g. created, deleted, created-error (implies --for state)")
	cmdutil.Must(c.RegisterFlagCompletionFunc("state", cobra.FixedCompletions(stateNames(), cobra.ShellCompDirectiveNoFileComp)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("for", cobra.FixedCompletions([]string{awaitAgent, awaitState}, cobra.ShellCompDirectiveNoFileComp)))
	return c
}

// stateNames are the instance states --state accepts and completes.
func stateNames() []string {
	var names []string
	for _, s := range client.InstanceStates() {
		names = append(names, string(s))
	}
	return names
}
