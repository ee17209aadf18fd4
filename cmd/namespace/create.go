package namespace

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdCreate builds `shakectl namespace create`.
func NewCmdCreate(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "create", Short: "Create a namespace",
		Long: `Create a namespace (system namespace only) and print it. It has no keys yet:
add one with "shakectl namespace add-key".`,
		Example: `  shakectl namespace create ci`,
	}, func(s *cmdutil.Session, args []string) error {
		ns, err := s.Client.CreateNamespace(s.Ctx, args[0])
		if err != nil {
			return err
		}
		return s.PrintDetail(namespaceResource.Detail(ns))
	})
	return builders.Args(c, "NAMESPACE")
}
