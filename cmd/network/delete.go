package network

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/clusteroperation"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl network delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete", Short: "Delete a virtual network (and wait for it, within --async)",
		Long: `Delete a network, named by UUID or name.

The server's answer decides what happens next (both generations are spoken;
"shakectl help generations"):

  2026 (develop): 202 with a cluster operation, {"op_type": "net_op",
  "op_uuid": …}. shakectl follows the operation (GET
  /clusteroperations/net_op/UUID) until it is "complete", and prints it.
  When it ends in "error" or "abort" the command fails (exit 1) with the
  operation's error, after printing the operation.

  2024: 200 with the network as it is: "delete-wait" while instances still
  have interfaces on it (it goes once they do), or nothing when it was
  already deleted. shakectl then waits until the network is deleted, and
  prints it.

The wait is bounded by --timeout, else the --async budget: pause (the
default) 60s, giving up quietly with what it last saw; block 1h, failing
with exit code 124; continue does not wait, and prints the operation's
handle (2026) or the network (2024) at once. "shakectl cluster-operation
show net_op/UUID" follows a handle later.

Freeing a network also frees its addresses: that is the way out of an
exhausted address pool ("No free addresses on network", a 507 without a
stage).`,
		Example: `  shakectl network delete net1
  shakectl network delete net1 --async block --timeout 5m
  shakectl network delete net1 --async continue -o json   # the operation handle`,
	}, func(s *cmdutil.Session, args []string) error {
		start := time.Now()
		d, err := s.Client.StartNetworkDelete(s.Ctx, args[0])
		if err != nil {
			return err
		}
		if d.Operation != nil {
			return clusteroperation.Follow(s, start, "deleting network "+args[0], *d.Operation)
		}
		n := d.Network
		if n == nil {
			// 200 null: the server had already deleted it.
			s.Note("already_deleted", "network %s was already deleted", args[0])
			return nil
		}
		n, err = builders.AwaitAsync(s, builders.WatchedNetwork(s.Client), start, n, args[0], client.StateDeleted)
		return builders.PrintResult(s, networkResource.Detail, n, err)
	})
	return builders.Args(c, "NETWORK", complete.NetworkNames(f))
}
