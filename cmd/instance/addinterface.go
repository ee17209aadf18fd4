package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/iface"
)

// NewCmdAddInterface builds `shakectl instance add-interface`, with
// sf-client's argument and flags (client-python 6c25293c
// commandline/instance.py instance_add_interface): the interface is one
// of -n NET[@ADDR], -f NET[@ADDR] (floated) or -N networkspec, exactly
// one, which Cobra's flag groups enforce (a usage error, exit 2).
func NewCmdAddInterface(f *cmdutil.Factory) *cobra.Command {
	var network, floated, networkSpec string
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "add-interface", Short: "Hot-plug a network interface into an instance",
		Long: `Add a network interface to an instance (POST /instances/REF/interfaces, as
sf-client's "instance add-interface" sends it). Name the interface with
exactly one of -n NET[@ADDR], -f NET[@ADDR] (the same, with a floating
address) or -N network_uuid=NET,address=IP,macaddress=MAC,model=virtio,float=true.
It prints the new interface. The server refuses a deleted or failed
instance, a network that is not ready or not the instance's namespace's,
and an address in use.`,
		Example: `  shakectl instance add-interface web1 -n net2
  shakectl instance add-interface web1 -f net2@10.0.0.47
  shakectl instance add-interface web1 -N network_uuid=net2,model=e1000`,
	}, func(s *cmdutil.Session, args []string) error {
		flag, value, parse := "-N", networkSpec, client.ParseNetworkSpecLong
		switch {
		case network != "":
			flag, value, parse = "-n", network, client.ParseNetworkSpec
		case floated != "":
			flag, value, parse = "-f", floated, client.ParseFloatedSpec
		}
		spec, err := parse(value)
		if err != nil {
			return cmdutil.UsageErrorf("%s: %s", flag, err)
		}
		ifc, err := s.Client.AddInstanceInterface(s.Ctx, args[0], spec)
		if err != nil {
			return err
		}
		return s.PrintDetail(iface.Resource.Detail(ifc))
	})
	builders.Args(c, "INSTANCE", complete.InstanceNames(f))
	fl := c.Flags()
	fl.StringVarP(&network, "network", "n", "", "the network to attach, NET[@ADDR]")
	fl.StringVarP(&floated, "floated", "f", "", "as -n, with a floating address")
	fl.StringVarP(&networkSpec, "networkspec", "N", "", "the interface in long form, network_uuid=NET,address=IP,macaddress=MAC,model=virtio,float=true")
	c.MarkFlagsOneRequired("network", "floated", "networkspec")
	c.MarkFlagsMutuallyExclusive("network", "floated", "networkspec")
	cmdutil.Must(c.RegisterFlagCompletionFunc("network", complete.NetworkNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("floated", complete.NetworkNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("networkspec", cobra.NoFileCompletions))
	return c
}
