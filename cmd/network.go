package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
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

var networkColumns = []output.Column{
	{Header: "UUID"}, {Header: "NAME"}, {Header: "NAMESPACE"}, {Header: "NETBLOCK"},
	{Header: "DHCP"}, {Header: "NAT"}, {Header: "STATE", Paint: output.StatePainter},
}

func networkList(items []client.Network) output.List {
	l := output.List{Columns: networkColumns, Rows: [][]string{}, Raw: []json.RawMessage{}}
	for _, n := range items {
		l.Rows = append(l.Rows, []string{n.UUID, n.Name, n.Namespace, n.Netblock, yesNo(n.ProvideDHCP), yesNo(n.ProvideNAT), n.State})
		l.Raw = append(l.Raw, rawOf(n.Raw, n))
	}
	return l
}

func networkDetail(n *client.Network) output.Detail {
	return output.Detail{
		Fields: []output.Field{
			{Name: "uuid", Value: n.UUID},
			{Name: "name", Value: n.Name},
			{Name: "namespace", Value: n.Namespace},
			{Name: "netblock", Value: n.Netblock},
			{Name: "provide_dhcp", Value: yesNo(n.ProvideDHCP)},
			{Name: "provide_nat", Value: yesNo(n.ProvideNAT)},
			{Name: "state", Value: n.State, Paint: output.StatePainter},
			{Name: "vxid", Value: itoa(n.VXID)},
		},
		Raw: rawOf(n.Raw, n),
	}
}

// NewCmdNetworkList builds `shakectl network list`.
func NewCmdNetworkList(f *Factory) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the namespace's networks",
		Long: `List the networks of the namespace you authenticate to. Deleted networks are
left out unless --all is given. Piped, and with -o simple, each network is
one tab-separated line without a header: UUID NAME NAMESPACE NETBLOCK DHCP
NAT STATE.`,
		Example: `  shakectl network list
  shakectl network list -o json | jq -r '.[].netblock'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			items, err := s.client.ListNetworks(s.ctx, all)
			if err != nil {
				return err
			}
			return s.printList(networkList(items))
		},
	}
	c.Flags().BoolVarP(&all, "all", "a", false, "include deleted networks")
	return c
}

// NewCmdNetworkShow builds `shakectl network show`.
func NewCmdNetworkShow(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "show NETWORK",
		Short:             "Show one network",
		Example:           `  shakectl network show net1`,
		Args:              refArgs("NETWORK"),
		ValidArgsFunction: argsAccepted(completeNetworkNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := newSession(f, nil)
			if err != nil {
				return err
			}
			defer s.close()
			n, err := s.client.GetNetwork(s.ctx, args[0])
			if err != nil {
				return err
			}
			return s.printDetail(networkDetail(n))
		},
	}
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
10.0.0.0/24). The network provides DHCP and NAT unless --dhcp=false or
--nat=false say otherwise.

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
			n, err := s.client.CreateNetwork(s.ctx, client.CreateNetworkRequest{
				Name: args[0], Netblock: prefix.String(), ProvideDHCP: dhcp, ProvideNAT: nat, Namespace: namespace,
			})
			if err != nil {
				return err
			}
			return s.printDetail(networkDetail(n))
		},
	}
	c.Flags().BoolVar(&dhcp, "dhcp", true, "serve DHCP on the network")
	c.Flags().BoolVar(&nat, "nat", true, "give the network outbound NAT")
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to create the network in")
	c.ValidArgsFunction = cobra.NoFileCompletions
	must(c.RegisterFlagCompletionFunc("namespace", completeNamespaceNames(f)))
	return c
}

// NewCmdNetworkDelete builds `shakectl network delete`.
func NewCmdNetworkDelete(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NETWORK",
		Short: "Delete a virtual network",
		Long: `Delete a network, named by UUID or name, and print it.

The server may schedule the teardown as a cluster operation (202 Accepted).
With --async pause (the default) or block, shakectl then waits until the
network is deleted, within the deadline (--timeout, else 60s or 1h); pause
gives up quietly, block fails with exit code 124. With --async continue it
returns at once.

Freeing a network also frees its addresses: that is the way out of an
exhausted address pool (a 507 without a stage).`,
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
			if s.cfg.Async == "continue" {
				n, err := s.client.DeleteNetworkAsync(s.ctx, args[0])
				if err != nil {
					return err
				}
				return s.printDetail(networkDetail(n))
			}
			ctx, cancel := withDeadline(s.ctx, s.cfg.Deadline())
			defer cancel()
			n, err := s.client.DeleteNetwork(ctx, args[0])
			if err != nil && errors.Is(err, ErrTimeout) && n != nil && s.cfg.Async == "pause" && s.f.Context.Err() == nil {
				if !s.cfg.Quiet {
					fmt.Fprintf(s.f.IOStreams.ErrOut, "network %s is still %s after %s; it is being deleted\n", args[0], orUnknown(n.State), s.cfg.Deadline())
				}
				err = nil
			}
			if n != nil {
				if perr := s.printDetail(networkDetail(n)); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
}
