package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdShow builds `shakectl namespace show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	return builders.NewShowCmd(f, namespaceResource, builders.ShowSpec[client.Namespace]{
		Arg: "NAMESPACE", Short: "Show one namespace",
		Long: `Show a namespace: its state, the names of its keys (never the keys), the
namespaces it trusts to see its objects, and its metadata.`,
		Example:  `  shakectl namespace show ci -o json`,
		Complete: complete.NamespaceNames(f),
		Get:      (*client.Client).GetNamespace,
	})
}
