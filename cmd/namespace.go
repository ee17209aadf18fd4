package cmd

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
)

// NewCmdNamespace groups the namespace commands.
func NewCmdNamespace(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "namespace <command>",
		Aliases: []string{"namespaces"},
		Short:   "List namespaces",
		Long:    `Work with Shakenfist namespaces (the units of ownership and authentication).`,
		Example: `  shakectl namespace list`,
	}
	c.AddCommand(NewCmdNamespaceList(f))
	return c
}

// namespaceResource is GET /auth/namespaces of shakenfist da448b1a: the key
// names are under "keys".
var namespaceResource = resource[client.Namespace]{
	singular: "namespace", plural: "namespaces",
	columns: []column[client.Namespace]{
		field("NAME", func(n *client.Namespace) string { return n.Name }),
		field("KEYS", func(n *client.Namespace) string { return strings.Join(n.Keys, ",") }),
		field("METADATA", func(n *client.Namespace) string { return compactJSON(n.Metadata) }),
	},
	raw: func(n *client.Namespace) json.RawMessage { return rawOf(n.Raw, n) },
}

// NewCmdNamespaceList builds `shakectl namespace list`.
func NewCmdNamespaceList(f *Factory) *cobra.Command {
	return newListCmd(f, namespaceResource, listSpec[client.Namespace]{
		short: "List the namespaces you can see",
		long: `List the namespaces that trust the namespace you authenticate to (all of them
for the system namespace), with the names of their keys (never the keys).
Piped, and with -o simple, each is one tab-separated line: NAME KEYS METADATA.`,
		example: `  shakectl namespace list
  shakectl namespace list -o json | jq -r '.[].name'`,
		fetch: func(c *client.Client, ctx context.Context, _ bool) ([]client.Namespace, error) {
			return c.ListNamespaces(ctx)
		},
	})
}
