package node

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdShow builds `shakectl node show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewShowCmd(f, nodeResource, cmdutil.ShowSpec[client.Node]{
		Arg: "NODE", Short: "Show one node", Example: `  shakectl node show sf-1`,
		Complete: cmdutil.CompleteNodeNames(f),
		Get:      (*client.Client).GetNode,
	})
}
