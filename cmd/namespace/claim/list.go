package claim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdList builds `shakectl namespace claim list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return builders.NewRefListCmd(f, claimResource, builders.RefListSpec[client.Claim]{
		Use: "list", Arg: "NAMESPACE", Short: "List a namespace's capacity claims",
		Long: `List a namespace's capacity claims, expired ones included: use against
limit for vCPUs, MiB and GB, and when each expires.`,
		Example:  `  shakectl namespace claim list ci`,
		Complete: complete.NamespaceNames(f),
		Fetch:    (*client.Client).ListNamespaceClaims,
	})
}
