package cmd

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
)

// NewCmdNetwork groups the network commands.
func NewCmdNetwork(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "network <command>",
		Aliases: []string{"networks"},
		Short:   "List, inspect, create and delete virtual networks",
		Long:    `Work with Shakenfist virtual networks. A network is named by its UUID or its name.`,
		Example: `  shakectl network list
  shakectl network create net1 10.0.0.0/24
  shakectl network show net1 -o yaml
  shakectl network delete net1`,
	}
	c.AddCommand(NewCmdNetworkList(f), NewCmdNetworkShow(f), NewCmdNetworkCreate(f), NewCmdNetworkDelete(f))
	return c
}

// networkResource is the network view of shakenfist da448b1a
// (external_api/network.py): "vxlan_id", provide_dns, floating_gateway.
var networkResource = resource[client.Network]{
	singular: "network", plural: "networks",
	columns: []column[client.Network]{
		field("UUID", func(n *client.Network) string { return n.UUID }),
		field("NAME", func(n *client.Network) string { return n.Name }),
		field("NAMESPACE", func(n *client.Network) string { return n.Namespace }),
		field("NETBLOCK", func(n *client.Network) string { return n.Netblock }),
		field("DHCP", func(n *client.Network) string { return yesNo(n.ProvideDHCP) }),
		field("NAT", func(n *client.Network) string { return yesNo(n.ProvideNAT) }),
		stateField("STATE", func(n *client.Network) string { return n.State }),
	},
	fields: []column[client.Network]{
		field("uuid", func(n *client.Network) string { return n.UUID }),
		field("name", func(n *client.Network) string { return n.Name }),
		field("namespace", func(n *client.Network) string { return n.Namespace }),
		field("netblock", func(n *client.Network) string { return n.Netblock }),
		field("provide_dhcp", func(n *client.Network) string { return yesNo(n.ProvideDHCP) }),
		field("provide_nat", func(n *client.Network) string { return yesNo(n.ProvideNAT) }),
		field("provide_dns", func(n *client.Network) string { return yesNo(n.ProvideDNS) }),
		field("floating_gateway", func(n *client.Network) string { return n.FloatingGateway }),
		stateField("state", func(n *client.Network) string { return n.State }),
		field("vxlan_id", func(n *client.Network) string { return itoa(n.VXLANID) }),
	},
	raw: func(n *client.Network) json.RawMessage { return rawOf(n.Raw, n) },
}

// NewCmdNetworkList builds `shakectl network list`.
func NewCmdNetworkList(f *Factory) *cobra.Command {
	return newListCmd(f, networkResource, listSpec[client.Network]{
		short: "List the namespace's networks",
		long: `List the networks of the namespace you authenticate to. Deleted networks are
left out unless --all is given. Piped, and with -o simple, each network is
one tab-separated line without a header: UUID NAME NAMESPACE NETBLOCK DHCP
NAT STATE.`,
		example: `  shakectl network list
  shakectl network list -o json | jq -r '.[].netblock'`,
		withAll: true,
		fetch:   (*client.Client).ListNetworks,
	})
}

// NewCmdNetworkShow builds `shakectl network show`.
func NewCmdNetworkShow(f *Factory) *cobra.Command {
	return newShowCmd(f, networkResource, showSpec[client.Network]{
		arg: "NETWORK", short: "Show one network", example: `  shakectl network show net1`,
		complete: completeNetworkNames(f),
		get:      (*client.Client).GetNetwork,
	})
}

// NewCmdNetworkCreate builds `shakectl network create`.
func NewCmdNetworkCreate(f *Factory) *cobra.Command {
	var (
		dhcp, nat bool
		namespace string
	)
	c := &cobra.Command{
		Use:   "create NAME NETBLOCK",
		Short: "Create a virtual network",
		Long: `Create a virtual network NAME with the address block NETBLOCK (CIDR, e.g.
10.0.0.0/24). The network provides DHCP unless --dhcp=false says otherwise.
(Shakenfist turns provide_nat=false into true: --nat=false is sent, but a
real server gives the network NAT anyway.)

The server answers with the network in state "initial"; it is usable once
the network node has deployed it ("created"). --async decides whether
create waits for that: continue returns at once, pause (the default) waits
up to 60s and then prints the network as it is, block waits up to 1h and
fails (exit 124) if it is not created by then. --timeout replaces 60s/1h.

--namespace here is the namespace to create the network in; when no
namespace is configured otherwise, shakectl also authenticates to it.`,
		Example: `  shakectl network create net1 10.0.0.0/24
  shakectl network create isolated 192.168.50.0/24 --nat=false`,
		Args: refArgs("NAME", "NETBLOCK"),
		RunE: func(_ *cobra.Command, args []string) error {
			prefix, err := netip.ParsePrefix(args[1])
			if err != nil {
				return usageErrorf("NETBLOCK %q is not an address block in CIDR notation, e.g. 10.0.0.0/24", args[1])
			}
			if prefix.Masked() != prefix {
				return usageErrorf("NETBLOCK %q has host bits set; did you mean %s?", args[1], prefix.Masked())
			}
			s, err := newSession(f, func(cfg *Config) {
				if cfg.Namespace == "" && namespace != "" {
					cfg.Namespace = namespace
				}
			})
			if err != nil {
				return err
			}
			defer s.close()
			start := time.Now()
			n, err := s.client.CreateNetwork(s.ctx, client.CreateNetworkRequest{
				Name: args[0], Netblock: prefix.String(), ProvideDHCP: dhcp, ProvideNAT: nat, Namespace: namespace,
			})
			if err != nil {
				return err
			}
			if s.cfg.Async != "continue" {
				n, err = waitFor(s, watchedNetwork(s.client), start, n, args[0], "created", untilState("created"), s.cfg.Async == "pause")
			}
			return printResult(s, networkResource.detail, n, err)
		},
	}
	f.defineFlags(c, func() {
		c.Flags().BoolVar(&dhcp, "dhcp", true, "serve DHCP on the network")
		c.Flags().BoolVar(&nat, "nat", true, "give the network outbound NAT")
		c.Flags().StringVar(&namespace, "namespace", "", "the namespace to create the network in")
		must(c.RegisterFlagCompletionFunc("namespace", completeNamespaceNames(f)))
	})
	c.ValidArgsFunction = cobra.NoFileCompletions
	return c
}

// NewCmdNetworkDelete builds `shakectl network delete`.
func NewCmdNetworkDelete(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NETWORK",
		Short: "Delete a virtual network",
		Long: `Delete a network, named by UUID or name, and print it.

The server answers 200 with the network as it is: "delete-wait" while
instances still have interfaces on it (it goes once they do), or nothing
when it was already deleted. With --async pause (the default) or block,
shakectl then waits until the network is deleted, within the deadline
(--timeout, else 60s or 1h); pause gives up quietly, block fails with exit
code 124. With --async continue it returns at once.

Freeing a network also frees its addresses: that is the way out of an
exhausted address pool ("No free addresses on network", a 507 without a
stage).`,
		Example: `  shakectl network delete net1
  shakectl network delete net1 --async block --timeout 5m`,
		Args:              refArgs("NETWORK"),
		ValidArgsFunction: argsAccepted(completeNetworkNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			start := time.Now()
			n, err := s.client.DeleteNetwork(s.ctx, args[0])
			if err != nil {
				return err
			}
			if n == nil {
				// 200 null: the server had already deleted it.
				if !s.cfg.Quiet {
					fmt.Fprintf(s.f.IOStreams.ErrOut, "network %s was already deleted\n", args[0])
				}
				return nil
			}
			if s.cfg.Async != "continue" && n.State != "deleted" {
				n, err = waitFor(s, watchedNetwork(s.client), start, n, args[0], "deleted", untilState("deleted"), s.cfg.Async == "pause")
			}
			return printResult(s, networkResource.detail, n, err)
		},
	}
}
