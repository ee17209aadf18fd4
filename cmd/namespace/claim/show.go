package claim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdShow builds `shakectl namespace claim show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return newClaimCmd(f, &cobra.Command{
		Use: "show", Short: "Show one capacity claim",
		Example: `  shakectl namespace claim show ci 0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f -o json`,
	}, (*client.Client).GetNamespaceClaim)
}
