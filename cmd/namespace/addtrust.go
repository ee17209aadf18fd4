package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdAddTrust builds `shakectl namespace add-trust`.
func NewCmdAddTrust(f *cmdutil.Factory) *cobra.Command {
	return newTrustCmd(f, &cobra.Command{
		Use: "add-trust", Short: "Let another namespace see this one's objects",
		Long:    `Trust TRUSTED_NAMESPACE to see NAMESPACE's objects (sf-client add-trust), and print NAMESPACE.`,
		Example: `  shakectl namespace add-trust ci ops`,
	}, (*client.Client).AddNamespaceTrust)
}
