package network

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// addressResource is an address reservation of shakenfist da448b1a
// ipam.py: address, user ([type, uuid]), when, type, comment.
var addressResource = builders.Resource[client.AddressReservation]{
	Singular: "address", Plural: "addresses",
	Columns: []builders.Column[client.AddressReservation]{
		builders.Field("ADDRESS", func(a *client.AddressReservation) string { return a.Address }),
		builders.Field("TYPE", func(a *client.AddressReservation) string { return a.Type }),
		builders.Field("USER", func(a *client.AddressReservation) string { return builders.CompactRaw(a.User) }),
		builders.Field("WHEN", func(a *client.AddressReservation) string { return builders.FormatUnix(a.When) }),
		builders.Field("COMMENT", func(a *client.AddressReservation) string { return a.Comment }),
	},
	Raw: func(a *client.AddressReservation) json.RawMessage { return cmdutil.RawOf(a.Raw, a) },
}

// NewCmdAddresses builds `shakectl network addresses`.
func NewCmdAddresses(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefListCmd(f, addressResource, builders.RefListSpec[client.AddressReservation]{
		Use: "addresses", Arg: "NETWORK", Short: "List the addresses in use on a network",
		Long: `List the addresses reserved on a network: the gateway, the DHCP server,
floating addresses and each instance's, with who holds them and since when.`,
		Example:  `  shakectl network addresses net1`,
		Complete: complete.NetworkNames(f),
		Fetch:    (*client.Client).NetworkAddresses,
	})
}
