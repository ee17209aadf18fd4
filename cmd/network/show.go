package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdShow builds `shakectl network show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewShowCmd(f, networkResource, cmdutil.ShowSpec[client.Network]{
		Arg: "NETWORK", Short: "Show one network", Example: `  shakectl network show net1`,
		Complete: cmdutil.CompleteNetworkNames(f),
		Get:      (*client.Client).GetNetwork,
	})
}
