package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdAddRouted builds `shakectl network add-routed`.
func NewCmdAddRouted(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "add-routed", Short: "Route a floating address to a network",
		Long: `Take an address of the cluster's floating network and route it to NETWORK,
with no DNAT (POST /networks/REF/route): traffic for it reaches the
network as sent, for a service that answers on that address itself. The
server picks the address and answers it; the network node plumbs the route
soon after. It prints the network and the address (--jq .address, or
-o json, for scripts). The network must be created (406 otherwise); a full
floating network is a 507.`,
		Example: `  shakectl network add-routed net1
  addr=$(shakectl network add-routed net1 --jq .address)`,
	}, func(s *cmdutil.Session, args []string) error {
		addr, err := s.Client.RouteNetworkAddress(s.Ctx, args[0])
		if err != nil {
			return err
		}
		return s.PrintDetail(output.Detail{
			Raw:    cmdutil.RawOf(nil, map[string]string{"network": args[0], "address": addr}),
			Fields: []output.Field{{Name: "network", Value: args[0]}, {Name: "address", Value: addr}},
		})
	})
	return builders.Args(c, "NETWORK", complete.NetworkNames(f))
}

// NewCmdDeleteRouted builds `shakectl network delete-routed`.
func NewCmdDeleteRouted(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete-routed", Short: "Stop routing a floating address to a network",
		Long: `Remove the route of ADDRESS, an address "add-routed" gave NETWORK (DELETE
/networks/REF/route/ADDRESS). The network node removes the route and frees
the address soon after. An address nothing routes is "not found" (exit 5);
one routed to another network is refused (403). It prints nothing.`,
		Example: "  shakectl network delete-routed net1 192.168.20.7",
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.UnrouteNetworkAddress(s.Ctx, args[0], args[1])
	})
	return builders.Args(c, "NETWORK ADDRESS", complete.NetworkNames(f))
}
