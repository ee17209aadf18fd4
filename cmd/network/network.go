package network

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the network commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.NewGroupCmd(cmdutil.GroupSpec{
		Noun:  "network",
		Short: "List, inspect, create and delete virtual networks",
		Long:  `Work with Shakenfist virtual networks. A network is named by its UUID or its name.`,
		Example: `  shakectl network list
  shakectl network create net1 10.0.0.0/24
  shakectl network show net1 -o yaml
  shakectl network delete net1`,
	}, NewCmdList(f), NewCmdShow(f), NewCmdCreate(f), NewCmdDelete(f), NewCmdDeleteAll(f),
		NewCmdEvents(f), NewCmdInstances(f), NewCmdAddresses(f), NewCmdPing(f),
		NewCmdAddRouted(f), NewCmdDeleteRouted(f))
	c.AddCommand(cmdutil.NewMetadataCmds(f, cmdutil.MetadataSpec{
		Noun: "network", Arg: "NETWORK", Ref: "net1", Complete: cmdutil.CompleteNetworkNames(f),
		Get: (*client.Client).GetNetworkMetadata, Set: (*client.Client).SetNetworkMetadata,
		Delete: (*client.Client).DeleteNetworkMetadata,
	})...)
	return c
}

// networkResource is the network view of shakenfist da448b1a
// (external_api/network.py): "vxlan_id", provide_dns, floating_gateway.
var networkResource = cmdutil.Resource[client.Network]{
	Singular: "network", Plural: "networks",
	Columns: []cmdutil.Column[client.Network]{
		cmdutil.Field("UUID", func(n *client.Network) string { return n.UUID }),
		cmdutil.Field("NAME", func(n *client.Network) string { return n.Name }),
		cmdutil.Field("NAMESPACE", func(n *client.Network) string { return n.Namespace }),
		cmdutil.Field("NETBLOCK", func(n *client.Network) string { return n.Netblock }),
		cmdutil.Field("DHCP", func(n *client.Network) string { return cmdutil.YesNo(n.ProvideDHCP) }),
		cmdutil.Field("NAT", func(n *client.Network) string { return cmdutil.YesNo(n.ProvideNAT) }),
		cmdutil.StateField("STATE", func(n *client.Network) string { return n.State }),
	},
	Fields: []cmdutil.Column[client.Network]{
		cmdutil.Field("uuid", func(n *client.Network) string { return n.UUID }),
		cmdutil.Field("name", func(n *client.Network) string { return n.Name }),
		cmdutil.Field("namespace", func(n *client.Network) string { return n.Namespace }),
		cmdutil.Field("netblock", func(n *client.Network) string { return n.Netblock }),
		cmdutil.Field("provide_dhcp", func(n *client.Network) string { return cmdutil.YesNo(n.ProvideDHCP) }),
		cmdutil.Field("provide_nat", func(n *client.Network) string { return cmdutil.YesNo(n.ProvideNAT) }),
		cmdutil.Field("provide_dns", func(n *client.Network) string { return cmdutil.YesNo(n.ProvideDNS) }),
		cmdutil.Field("floating_gateway", func(n *client.Network) string { return n.FloatingGateway }),
		cmdutil.StateField("state", func(n *client.Network) string { return n.State }),
		cmdutil.Field("vxlan_id", func(n *client.Network) string { return cmdutil.Itoa(n.VXLANID) }),
	},
	Raw: func(n *client.Network) json.RawMessage { return cmdutil.RawOf(n.Raw, n) },
}
