package network

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdDelete builds `shakectl network delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NETWORK",
		Short: "Delete a virtual network",
		Long: `Delete a network, named by UUID or name, and print it.

The server answers 200 with the network as it is: "delete-wait" while
instances still have interfaces on it (it goes once they do), or nothing
when it was already deleted. With --async pause (the default) or block,
shakectl then waits until the network is deleted, within the deadline
(--timeout, else 60s or 1h); pause gives up quietly, block fails with exit
code 124. With --async continue it returns at once.

Freeing a network also frees its addresses: that is the way out of an
exhausted address pool ("No free addresses on network", a 507 without a
stage).`,
		Example: `  shakectl network delete net1
  shakectl network delete net1 --async block --timeout 5m`,
		Args:              cmdutil.RefArgs("NETWORK"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteNetworkNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			start := time.Now()
			n, err := s.Client.DeleteNetwork(s.Ctx, args[0])
			if err != nil {
				return err
			}
			if n == nil {
				// 200 null: the server had already deleted it.
				if !s.Cfg.Quiet {
					fmt.Fprintf(s.F.IOStreams.ErrOut, "network %s was already deleted\n", args[0])
				}
				return nil
			}
			if s.Cfg.Async != "continue" && n.Lifecycle() != client.StateDeleted {
				n, err = cmdutil.WaitFor(s, cmdutil.WatchedNetwork(s.Client), start, n, args[0], client.StateDeleted, cmdutil.UntilState(client.StateDeleted), s.Cfg.Async == "pause")
			}
			return cmdutil.PrintResult(s, networkResource.Detail, n, err)
		},
	}
}
