package claim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdDelete builds `shakectl namespace claim delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return newClaimCmd(f, &cobra.Command{
		Use: "delete", Short: "Release a capacity claim",
		Long:    `Release a claim and print it as it was just before (a claim has no soft delete).`,
		Example: `  shakectl namespace claim delete ci 0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f`,
	}, (*client.Client).DeleteNamespaceClaim)
}
