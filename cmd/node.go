package cmd

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
)

// NewCmdNode groups the node commands.
func NewCmdNode(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "node <command>",
		Aliases: []string{"nodes"},
		Short:   "List and inspect the cluster's nodes",
		Long: `Inspect the cluster's nodes (admin only: the system namespace): their roles
(hypervisor, network node, etcd master, event log node, cluster maintainer),
the Shakenfist release they run, when they were last seen, and their state.

The Shakenfist API does not expose per-node capacity: when a create is
refused with HTTP 507, the refusal's message says what ran short.`,
		Example: `  shakectl node list
  shakectl node show sf-1 -o json`,
	}
	c.AddCommand(NewCmdNodeList(f), NewCmdNodeShow(f))
	return c
}

// nodeResource is the node view of shakenfist da448b1a (external_api/
// node.py): name, ip, state, lastseen, release, an integer schema version
// and the is_* role flags; no capacity and no tags.
var nodeResource = resource[client.Node]{
	singular: "node", plural: "nodes",
	columns: []column[client.Node]{
		field("NAME", func(n *client.Node) string { return n.Name }),
		field("IP", func(n *client.Node) string { return n.IP }),
		stateField("STATE", func(n *client.Node) string { return n.State }),
		field("ROLES", nodeRoles),
		field("RELEASE", func(n *client.Node) string { return n.Release }),
		field("LASTSEEN", func(n *client.Node) string { return formatUnix(n.LastSeen) }),
	},
	fields: []column[client.Node]{
		field("name", func(n *client.Node) string { return n.Name }),
		field("ip", func(n *client.Node) string { return n.IP }),
		stateField("state", func(n *client.Node) string { return n.State }),
		field("roles", nodeRoles),
		field("release", func(n *client.Node) string { return n.Release }),
		field("lastseen", func(n *client.Node) string { return formatUnix(n.LastSeen) }),
		field("version", func(n *client.Node) string { return itoa(n.Version) }),
	},
	raw: func(n *client.Node) json.RawMessage { return rawOf(n.Raw, n) },
}

func nodeRoles(n *client.Node) string { return strings.Join(n.Roles(), ",") }

// NewCmdNodeList builds `shakectl node list`.
func NewCmdNodeList(f *Factory) *cobra.Command {
	return newListCmd(f, nodeResource, listSpec[client.Node]{
		short: "List the cluster's nodes",
		long: `List the cluster's nodes, in every state (admin only). ROLES comes from the
node's is_* flags. Piped, and with -o simple, each node is one tab-separated
line without a header: NAME IP STATE ROLES RELEASE LASTSEEN.`,
		example: `  shakectl node list
  shakectl node list -o json | jq -r '.[] | select(.is_hypervisor) | .name'`,
		fetch: func(c *client.Client, ctx context.Context, _ bool) ([]client.Node, error) { return c.ListNodes(ctx) },
	})
}

// NewCmdNodeShow builds `shakectl node show`.
func NewCmdNodeShow(f *Factory) *cobra.Command {
	return newShowCmd(f, nodeResource, showSpec[client.Node]{
		arg: "NODE", short: "Show one node", example: `  shakectl node show sf-1`,
		complete: completeNodeNames(f),
		get:      (*client.Client).GetNode,
	})
}
