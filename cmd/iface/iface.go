package iface

import (
	"encoding/json"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmd groups the interface commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	complete := complete.InterfaceUUIDs(f)
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "interface",
		Short: "Show, float and tag an instance's network interfaces",
		Long: `Work with the network interfaces of instances. An interface is named by its
UUID ("shakectl instance show web1 -o json" lists them, and TAB completes
them); one of another namespace is "not found".`,
		Example: `  shakectl interface show b1981e81-b37a-4176-ba37-b61bc7208012
  shakectl interface float b1981e81-b37a-4176-ba37-b61bc7208012
  shakectl interface set-metadata b1981e81-b37a-4176-ba37-b61bc7208012 role frontend`,
	}, NewCmdShow(f, complete), NewCmdFloat(f, complete), NewCmdDefloat(f, complete))
	c.AddCommand(builders.NewMetadataCmds(f, builders.MetadataSpec{
		Noun: "interface", Arg: "INTERFACE", Ref: "ci", Complete: complete,
		Get: (*client.Client).GetInterfaceMetadata, Set: (*client.Client).SetInterfaceMetadata,
		Delete: (*client.Client).DeleteInterfaceMetadata,
	})...)
	return c
}

// Resource is the interface view (shakenfist da448b1a
// external_api/interface.py interface_get_example; the same view
// /instances/{ref}/interfaces lists and add-interface answers).
var Resource = builders.Resource[client.Interface]{
	Singular: "interface", Plural: "interfaces",
	Fields: []builders.Column[client.Interface]{
		builders.Field("uuid", func(i *client.Interface) string { return i.UUID }),
		builders.Field("instance_uuid", func(i *client.Interface) string { return i.InstanceUUID }),
		builders.Field("network_uuid", func(i *client.Interface) string { return i.NetworkUUID }),
		builders.Field("macaddr", func(i *client.Interface) string { return i.MACAddr }),
		builders.Field("ipv4", func(i *client.Interface) string { return i.IPv4 }),
		{Name: "floating", Value: func(i *client.Interface) string { return i.Floating }, OmitEmpty: true},
		builders.Field("model", func(i *client.Interface) string { return i.Model }),
		builders.Field("order", func(i *client.Interface) string { return strconv.Itoa(i.Order) }),
		builders.StateField("state", func(i *client.Interface) string { return i.State }),
	},
	Raw: func(i *client.Interface) json.RawMessage { return cmdutil.RawOf(i.Raw, i) },
}

// NewCmdShow builds `shakectl interface show`.
func NewCmdShow(f *cmdutil.Factory, complete cobra.CompletionFunc) *cobra.Command {
	return builders.NewRefDetailCmd(f, Resource, builders.RefDetailSpec[client.Interface]{
		Use: "show", Arg: "INTERFACE", Short: "Show an interface",
		Long: `Show one network interface: its instance, network, MAC and IPv4 address,
its floating address if it has one, model, order and state.`,
		Example:  "  shakectl interface show b1981e81-b37a-4176-ba37-b61bc7208012 -o json",
		Complete: complete, Call: (*client.Client).GetInterface,
	})
}

// NewCmdFloat builds `shakectl interface float`.
func NewCmdFloat(f *cmdutil.Factory, complete cobra.CompletionFunc) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "float", Short: "Give an interface a floating address",
		Long: `Give an interface an address on the cluster's floating network, reachable
from outside (DNAT to the interface's address). The server reserves the
address at once (507 "No free addresses on network" when none is left) and
the network node plumbs it soon after; the command then prints the
interface with its floating address. sf-client prints nothing.

The server does not refuse an interface that already floats: it reserves
another address, and the interface keeps only the newest.`,
		Example: "  shakectl interface float b1981e81-b37a-4176-ba37-b61bc7208012",
	}, func(s *cmdutil.Session, args []string) error {
		if err := s.Client.FloatInterface(s.Ctx, args[0]); err != nil {
			return err
		}
		i, err := s.Client.GetInterface(s.Ctx, args[0])
		if err != nil {
			return err
		}
		return s.PrintDetail(Resource.Detail(i))
	})
	return builders.Args(c, "INTERFACE", complete)
}

// NewCmdDefloat builds `shakectl interface defloat`.
func NewCmdDefloat(f *cmdutil.Factory, complete cobra.CompletionFunc) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "defloat", Short: "Take an interface's floating address away",
		Long: `Remove an interface's floating address. The server queues the work for the
network node, which frees the address: "interface show" may list it for a
moment longer. It prints nothing, as sf-client.`,
		Example: "  shakectl interface defloat b1981e81-b37a-4176-ba37-b61bc7208012",
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.DefloatInterface(s.Ctx, args[0])
	})
	return builders.Args(c, "INTERFACE", complete)
}
