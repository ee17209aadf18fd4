package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdDelete builds `shakectl namespace delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return builders.NewVerbCmd(f, builders.VerbSpec{
		Use: "delete", Short: "Delete an empty namespace",
		Long: `Delete a namespace. The server refuses while the namespace holds instances or
networks (shakenfist da448b1a auth.py: "you cannot delete a namespace with
instances"); "shakectl namespace clean" deletes those first. The system
namespace cannot be deleted. Nothing is printed on success.`,
		Example: `  shakectl namespace clean ci --yes && shakectl namespace delete ci`,
		Args:    []string{"NAMESPACE"}, Complete: namespaceArg(f),
		Run: func(s *cmdutil.Session, args []string) error {
			return s.Client.DeleteNamespace(s.Ctx, args[0])
		},
	})
}
