package node

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl node delete` (admin), sf-client's "node
// delete" (client-python 6c25293c commandline/node.py): DELETE
// /nodes/{node}. Removing a node from the cluster cannot be undone from
// here, so it asks on a terminal and needs --yes elsewhere, as the
// delete-all commands do (builders.Confirm).
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	var yes bool
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete", Short: "Remove a node from the cluster",
		Long: `Remove a node from the cluster (DELETE /nodes/NODE, admin only). The server
marks the node deleted and schedules nothing more on it; it answers the
node, now in state deleted, which is printed.

It asks for confirmation on a terminal; anywhere else --yes must be given.`,
		Example: `  shakectl node delete sf-3 --yes`,
	}, func(s *cmdutil.Session, args []string) error {
		if err := builders.Confirm(s, yes, fmt.Sprintf("Delete node %q from the cluster", args[0])); err != nil {
			return err
		}
		n, err := s.Client.DeleteNode(s.Ctx, args[0])
		if err != nil {
			return err
		}
		return s.PrintDetail(nodeResource.Detail(n))
	})
	builders.Args(c, "NODE", complete.NodeNames(f))
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return c
}
