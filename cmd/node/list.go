package node

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl node list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, nodeResource, builders.ListSpec[client.Node]{
		Short: "List the cluster's nodes",
		Long: `List the cluster's nodes, in every state (admin only). ROLES comes from the
node's is_* flags. Piped, and with -o simple, each node is one tab-separated
line without a header: NAME IP STATE ROLES RELEASE LASTSEEN.`,
		Example: `  shakectl node list
  shakectl node list -o json | jq -r '.[] | select(.is_hypervisor) | .name'`,
		Fetch: func(c *client.Client, ctx context.Context, _ bool) ([]client.Node, error) { return c.ListNodes(ctx) },
	})
}
