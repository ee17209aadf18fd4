package instance

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdAwait builds `shakectl instance await`.
func NewCmdAwait(f *cmdutil.Factory) *cobra.Command {
	var state string
	c := &cobra.Command{
		Use:   "await INSTANCE",
		Short: "Wait until an instance reaches a state (default: created)",
		Long: `Wait until an instance, named by UUID or name, reaches a state, then print it.

The wait is bounded by the deadline: --timeout, else the --async budget
(pause 60s, block 1h, continue 0 = look once). When it runs out the command
fails with exit code 124. "preflight" counts as still being created. An
instance that lands in an error state (error, or any "<x>-error" such as
created-error) or is deleted while waiting for something else fails
the command at once (exit code 1) with the server's error message. Waiting
for "deleted" also succeeds when the instance disappears (404) while waited
for.`,
		Example: `  shakectl instance await web1
  shakectl instance await web1 --state deleted --timeout 2m
  shakectl instance create web1 2 2048 -d 20 --async continue && shakectl instance await web1 --async block`,
		Args:              cmdutil.RefArgs("INSTANCE"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteInstanceNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			state = strings.TrimSpace(state)
			if state == "" {
				return cmdutil.UsageErrorf("--state must not be empty")
			}
			if !slices.Contains(client.InstanceStates(), client.State(state)) {
				return cmdutil.UsageErrorf("--state %q is not an instance state; want one of %s", state, strings.Join(stateNames(), ", "))
			}
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			start := time.Now()
			inst, err := cmdutil.WaitFor(s, cmdutil.WatchedInstance(s.Client), start, nil, args[0], client.State(state), cmdutil.UntilState(client.State(state)), false)
			if inst != nil {
				if perr := s.PrintDetail(instanceDetail(inst)); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	c.Flags().StringVar(&state, "state", "created", "the state to wait for, e.g. created, deleted, created-error")
	cmdutil.Must(c.RegisterFlagCompletionFunc("state", cobra.FixedCompletions(stateNames(), cobra.ShellCompDirectiveNoFileComp)))
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
