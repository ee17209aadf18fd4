package node

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShow builds `shakectl node show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, nodeResource, builders.ShowSpec[client.Node]{
		Arg: "NODE", Short: "Show one node", Example: `  shakectl node show sf-1`,
		Complete: complete.NodeNames(f),
		Get:      (*client.Client).GetNode,
	})
}
