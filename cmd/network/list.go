package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl network list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewListCmd(f, networkResource, builders.ListSpec[client.Network]{
		Short: "List the namespace's networks",
		Long: `List the networks of the namespace you authenticate to. Deleted networks are
left out unless --all is given. Piped, and with -o simple, each network is
one tab-separated line without a header: UUID NAME NAMESPACE NETBLOCK DHCP
NAT STATE.`,
		Example: `  shakectl network list
  shakectl network list -o json | jq -r '.[].netblock'`,
		WithAll: true,
		Fetch:   (*client.Client).ListNetworks,
	})
}
