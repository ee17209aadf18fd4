package namespace

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl namespace list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, namespaceResource, builders.ListSpec[client.Namespace]{
		Short: "List the namespaces you can see",
		Long: `List the namespaces that trust the namespace you authenticate to (all of them
for the system namespace), with the names of their keys (never the keys).
Piped, and with -o simple, each is one tab-separated line: NAME KEYS METADATA.`,
		Example: `  shakectl namespace list
  shakectl namespace list -o json | jq -r '.[].name'`,
		Fetch: func(c *client.Client, ctx context.Context, _ bool) ([]client.Namespace, error) {
			return c.ListNamespaces(ctx)
		},
	})
}
