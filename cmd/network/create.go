package network

import (
	"net/netip"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdCreate builds `shakectl network create`.
func NewCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var (
		dhcp, nat, dns bool
		namespace      string
	)
	c := cmdutil.VerbWith(f, &cobra.Command{
		Use:   "create",
		Short: "Create a virtual network",
		Long: `Create a virtual network NAME with the address block NETBLOCK (CIDR, e.g.
10.0.0.0/24). The network provides DHCP unless --no-dhcp says otherwise, and
DNS only with --dns (sent only to a server that advertises provide-dns).
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
	}, func(cfg *cmdutil.Config) {
		if cfg.Namespace == "" && namespace != "" {
			cfg.Namespace = namespace
		}
	}, func(s *cmdutil.Session, args []string) error {
		prefix, err := netip.ParsePrefix(args[1])
		if err != nil {
			return cmdutil.UsageErrorf("NETBLOCK %q is not an address block in CIDR notation, e.g. 10.0.0.0/24", args[1])
		}
		if prefix.Masked() != prefix {
			return cmdutil.UsageErrorf("NETBLOCK %q has host bits set; did you mean %s?", args[1], prefix.Masked())
		}

		start := time.Now()
		n, err := s.Client.CreateNetwork(s.Ctx, client.CreateNetworkRequest{
			Name: args[0], Netblock: prefix.String(), ProvideDHCP: dhcp, ProvideNAT: nat, ProvideDNS: dns, Namespace: namespace,
		})
		if err != nil {
			return err
		}
		if s.Cfg.Async.Waits() {
			wait := builders.ForState(builders.WatchedNetwork(s.Client), args[0], client.StateCreated, nil)
			wait.Start, wait.Last, wait.OnTimeout = start, n, s.Cfg.Async.OnTimeout()
			n, err = builders.Await(s, wait)
		}
		return builders.PrintResult(s, networkResource.Detail, n, err)
	})
	c.Flags().BoolVar(&dhcp, "dhcp", true, "serve DHCP on the network")
	c.Flags().BoolVar(&nat, "nat", true, "give the network outbound NAT")
	c.Flags().BoolVar(&dns, "dns", false, "serve DNS for the network's instances (servers with provide-dns)")
	// sf-client spells the negations --no-dhcp, --no-nat and --no-dns.
	var noDHCP, noNAT, noDNS bool
	c.Flags().BoolVar(&noDHCP, "no-dhcp", false, "the same as --dhcp=false")
	c.Flags().BoolVar(&noNAT, "no-nat", false, "the same as --nat=false")
	c.Flags().BoolVar(&noDNS, "no-dns", false, "the same as --dns=false (the default)")
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, name := range []string{"dhcp", "nat", "dns"} {
			if cmd.Flags().Changed(name) && cmd.Flags().Changed("no-"+name) {
				return cmdutil.UsageErrorf("--%s and --no-%s contradict each other", name, name)
			}
		}
		dhcp, nat, dns = dhcp && !noDHCP, nat && !noNAT, dns && !noDNS
		return nil
	}
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to create the network in")
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", complete.NamespaceNames(f)))
	return builders.Args(c, "NAME NETBLOCK")
}
