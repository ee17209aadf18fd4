package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDeleteKey builds `shakectl namespace delete-key`.
func NewCmdDeleteKey(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "delete-key", Short: "Remove a key from a namespace",
		Long:    `Remove the key KEYNAME from a namespace; its tokens stop working. Nothing is printed on success.`,
		Example: `  shakectl namespace delete-key ci deploy`,
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.DeleteNamespaceKey(s.Ctx, args[0], args[1])
	})
	return builders.Args(c, "NAMESPACE KEYNAME", complete.NamespaceNames(f))
}
