package namespace

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmd groups the namespace commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "namespace <command>",
		Aliases: []string{"namespaces"},
		Short:   "List namespaces",
		Long:    `Work with Shakenfist namespaces (the units of ownership and authentication).`,
		Example: `  shakectl namespace list`,
	}
	c.AddCommand(NewCmdList(f))
	return c
}

// namespaceResource is GET /auth/namespaces of shakenfist da448b1a: the key
// names are under "keys".
var namespaceResource = cmdutil.Resource[client.Namespace]{
	Singular: "namespace", Plural: "namespaces",
	Columns: []cmdutil.Column[client.Namespace]{
		cmdutil.Field("NAME", func(n *client.Namespace) string { return n.Name }),
		cmdutil.Field("KEYS", func(n *client.Namespace) string { return strings.Join(n.Keys, ",") }),
		cmdutil.Field("METADATA", func(n *client.Namespace) string { return cmdutil.CompactJSON(n.Metadata) }),
	},
	Raw: func(n *client.Namespace) json.RawMessage { return cmdutil.RawOf(n.Raw, n) },
}
