package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdRemoveTrust builds `shakectl namespace remove-trust`.
func NewCmdRemoveTrust(f *cmdutil.Factory) *cobra.Command {
	return newTrustCmd(f, &cobra.Command{
		Use: "remove-trust", Short: "Withdraw another namespace's view of this one",
		Long:    `Stop trusting TRUSTED_NAMESPACE with NAMESPACE's objects, and print NAMESPACE.`,
		Example: `  shakectl namespace remove-trust ci ops`,
	}, (*client.Client).RemoveNamespaceTrust)
}
