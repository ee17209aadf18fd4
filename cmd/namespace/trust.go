package namespace

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// newTrustCmd builds add-trust or remove-trust: both answer the namespace
// as it now is, which is printed.
func newTrustCmd(f *cmdutil.Factory, decl *cobra.Command, call func(*client.Client, context.Context, string, string) (*client.Namespace, error)) *cobra.Command {
	c := cmdutil.Verb(f, decl, func(s *cmdutil.Session, args []string) error {
		ns, err := call(s.Client, s.Ctx, args[0], args[1])
		if err != nil {
			return err
		}
		return s.PrintDetail(namespaceResource.Detail(ns))
	})
	return builders.Args(c, "NAMESPACE TRUSTED_NAMESPACE", complete.NamespaceNames(f), complete.NamespaceNames(f))
}
