package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDelete builds `shakectl namespace delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete", Short: "Delete an empty namespace",
		Long: `Delete a namespace. The server refuses while the namespace holds instances or
networks (shakenfist da448b1a auth.py: "you cannot delete a namespace with
instances"); "shakectl namespace clean" deletes those first. The system
namespace cannot be deleted. Nothing is printed on success.`,
		Example: `  shakectl namespace clean ci --yes && shakectl namespace delete ci`,
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.DeleteNamespace(s.Ctx, args[0])
	})
	return builders.Args(c, "NAMESPACE", complete.NamespaceNames(f))
}
