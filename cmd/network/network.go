package network

import (
	"encoding/json"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmd groups the network commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
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
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "network", Arg: "NETWORK", Ref: "net1", Complete: complete.NetworkNames(f),
		Get: (*client.Client).GetNetworkMetadata, Set: (*client.Client).SetNetworkMetadata,
		Delete: (*client.Client).DeleteNetworkMetadata,
	})...)
	return c
}

// networkResource is the network view of shakenfist da448b1a
// (external_api/network.py): "vxlan_id", provide_dns, floating_gateway.
var networkResource = builders.Resource[client.Network]{
	Singular: "network", Plural: "networks",
	Columns: []builders.Column[client.Network]{
		builders.Field("UUID", func(n *client.Network) string { return n.UUID }),
		builders.Field("NAME", func(n *client.Network) string { return n.Name }),
		builders.Field("NAMESPACE", func(n *client.Network) string { return n.Namespace }),
		builders.Field("NETBLOCK", func(n *client.Network) string { return n.Netblock }),
		builders.Field("DHCP", func(n *client.Network) string { return builders.YesNo(n.ProvideDHCP) }),
		builders.Field("NAT", func(n *client.Network) string { return builders.YesNo(n.ProvideNAT) }),
		builders.StateField("STATE", func(n *client.Network) string { return n.State }),
	},
	Fields: []builders.Column[client.Network]{
		builders.Field("uuid", func(n *client.Network) string { return n.UUID }),
		builders.Field("name", func(n *client.Network) string { return n.Name }),
		builders.Field("namespace", func(n *client.Network) string { return n.Namespace }),
		builders.Field("netblock", func(n *client.Network) string { return n.Netblock }),
		builders.Field("provide_dhcp", func(n *client.Network) string { return builders.YesNo(n.ProvideDHCP) }),
		builders.Field("provide_nat", func(n *client.Network) string { return builders.YesNo(n.ProvideNAT) }),
		builders.Field("provide_dns", func(n *client.Network) string { return builders.YesNo(n.ProvideDNS) }),
		builders.Field("floating_gateway", func(n *client.Network) string { return n.FloatingGateway }),
		builders.StateField("state", func(n *client.Network) string { return n.State }),
		builders.Field("vxlan_id", func(n *client.Network) string { return strconv.Itoa(n.VXLANID) }),
	},
	Raw: func(n *client.Network) json.RawMessage { return cmdutil.RawOf(n.Raw, n) },
}
