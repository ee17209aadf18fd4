package label

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShow builds `shakectl label show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, labelResource, builders.ShowSpec[client.Artifact]{
		Arg: "LABEL", Short: "Show one label",
		Long: `Show a label (GET /label/LABEL). A label that does not exist is a server
error on shakenfist da448b1a (label.py calls error(404) without returning
it, then fails on the empty list): exit 1 with a 500, not a 404.`,
		Example:  `  shakectl label show debian-prod`,
		Complete: complete.LabelNames(f),
		Get:      (*client.Client).GetLabel,
	})
}
