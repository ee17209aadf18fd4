package network

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// interfaceResource is the interface view of shakenfist da448b1a
// (networkinterface.py), as GET /networks/{ref}/interfaces lists it.
var interfaceResource = builders.Resource[client.Interface]{
	Singular: "interface", Plural: "interfaces",
	Columns: []builders.Column[client.Interface]{
		builders.Field("INSTANCE", func(i *client.Interface) string { return i.InstanceUUID }),
		builders.Field("INTERFACE", func(i *client.Interface) string { return i.UUID }),
		builders.Field("MAC", func(i *client.Interface) string { return i.MACAddr }),
		builders.Field("IPV4", func(i *client.Interface) string { return i.IPv4 }),
		builders.Field("FLOATING", func(i *client.Interface) string { return i.Floating }),
		builders.StateField("STATE", func(i *client.Interface) string { return i.State }),
	},
	Raw: func(i *client.Interface) json.RawMessage { return cmdutil.RawOf(i.Raw, i) },
}

// NewCmdInstances builds `shakectl network instances`.
func NewCmdInstances(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefListCmd(f, interfaceResource, builders.RefListSpec[client.Interface]{
		Use: "instances", Arg: "NETWORK", Short: "List the instances on a network",
		Long: `List the interfaces on a network, one per line with the instance it belongs
to (its UUID), its MAC, IPv4 and floating addresses (GET
/networks/REF/interfaces, as sf-client's "network instances" reads it).`,
		Example:  `  shakectl network instances net1 -o columns=INSTANCE,IPV4`,
		Complete: complete.NetworkNames(f),
		Fetch:    (*client.Client).NetworkInterfaces,
	})
}
