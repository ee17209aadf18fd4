package node

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the node commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "node <command>",
		Aliases: []string{"nodes"},
		Short:   "List, inspect and remove the cluster's nodes",
		Long: `Inspect the cluster's nodes (admin only: the system namespace): their roles
(hypervisor, network node, etcd master, event log node, cluster maintainer),
the Shakenfist release they run, when they were last seen, and their state.

"node resources" shows the scheduler's view of each node's free capacity
where the server routes /admin/resources (2026); when a create is refused
with HTTP 507, the refusal's message says what ran short.`,
		Example: `  shakectl node list
  shakectl node show sf-1 -o json
  shakectl node events sf-1 --type resources
  shakectl node resources
  shakectl node delete sf-3 --yes`,
	}
	c.AddCommand(NewCmdList(f), NewCmdShow(f), NewCmdEvents(f), NewCmdResources(f), NewCmdDelete(f), NewCmdCPUHogs(f))
	return c
}

// nodeResource is the node view of shakenfist da448b1a (external_api/
// node.py): name, ip, state, lastseen, release, an integer schema version
// and the is_* role flags; no capacity and no tags.
var nodeResource = builders.Resource[client.Node]{
	Singular: "node", Plural: "nodes",
	Columns: []builders.Column[client.Node]{
		builders.Field("NAME", func(n *client.Node) string { return n.Name }),
		builders.Field("IP", func(n *client.Node) string { return n.IP }),
		builders.StateField("STATE", func(n *client.Node) string { return n.State }),
		builders.Field("ROLES", nodeRoles),
		builders.Field("RELEASE", func(n *client.Node) string { return n.Release }),
		builders.Field("LASTSEEN", func(n *client.Node) string { return builders.FormatUnix(n.LastSeen) }),
	},
	Fields: []builders.Column[client.Node]{
		builders.Field("name", func(n *client.Node) string { return n.Name }),
		builders.Field("ip", func(n *client.Node) string { return n.IP }),
		builders.StateField("state", func(n *client.Node) string { return n.State }),
		builders.Field("roles", nodeRoles),
		builders.Field("release", func(n *client.Node) string { return n.Release }),
		builders.Field("lastseen", func(n *client.Node) string { return builders.FormatUnix(n.LastSeen) }),
		builders.Field("version", func(n *client.Node) string { return strconv.Itoa(n.Version) }),
	},
	Raw: func(n *client.Node) json.RawMessage { return cmdutil.RawOf(n.Raw, n) },
}

func nodeRoles(n *client.Node) string { return strings.Join(n.Roles(), ",") }
