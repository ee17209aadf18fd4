package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdDeleteKey builds `shakectl namespace delete-key`.
func NewCmdDeleteKey(f *cmdutil.Factory) *cobra.Command {
	return builders.NewVerbCmd(f, builders.VerbSpec{
		Use: "delete-key", Short: "Remove a key from a namespace",
		Long:    `Remove the key KEYNAME from a namespace; its tokens stop working. Nothing is printed on success.`,
		Example: `  shakectl namespace delete-key ci deploy`,
		Args:    []string{"NAMESPACE", "KEYNAME"}, Complete: namespaceArg(f),
		Run: func(s *cmdutil.Session, args []string) error {
			return s.Client.DeleteNamespaceKey(s.Ctx, args[0], args[1])
		},
	})
}
