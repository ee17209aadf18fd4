package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShow builds `shakectl network show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, networkResource, builders.ShowSpec[client.Network]{
		Arg: "NETWORK", Short: "Show one network", Example: `  shakectl network show net1`,
		Complete: complete.NetworkNames(f),
		Get:      (*client.Client).GetNetwork,
	})
}
