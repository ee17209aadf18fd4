package label

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl label delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefDetailCmd(f, labelResource, builders.RefDetailSpec[client.Artifact]{
		Use: "delete", Arg: "LABEL", Short: "Delete a label",
		Long: `Delete a label and print it; its blobs each lose a reference (the blobs
stay while other artifacts use them). An unknown label is a 500 on
shakenfist da448b1a (see label show).`,
		Example:  `  shakectl label delete debian-prod`,
		Complete: complete.LabelNames(f),
		Check:    checkLabelName,
		Call:     (*client.Client).DeleteLabel,
		Gone:     "label",
	})
}
