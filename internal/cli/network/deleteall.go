package network

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdDeleteAll builds `shakectl network delete-all`.
func NewCmdDeleteAll(f *cmdutil.Factory) *cobra.Command {
	var cleanWait bool
	c := cmdutil.NewDeleteAllCmd(f, cmdutil.DeleteAllSpec{
		Plural: "networks",
		Long: `Delete every network of a namespace (--namespace, else the one you
authenticate to; a system key must name one): DELETE /networks with
confirm, as sf-client's "network delete-all" sends it. A network that still
has interfaces is not deleted (a 2024 server lists it as unable; exit 1)
unless --wait-for-interfaces asks the server to delete it once they have
gone. A 2026 server deletes in cluster operations, one per network.`,
		Example: `  shakectl network delete-all --namespace ci --yes`,
		Delete: func(s *cmdutil.Session, ns string) (output.Detail, error) {
			res, err := s.Client.DeleteAllNetworks(s.Ctx, ns, cleanWait)
			fields, err := cmdutil.NetworksDeletedFields(res, err)
			return output.Detail{Raw: cmdutil.RawOf(nil, res), Fields: fields}, err
		},
	})
	c.Flags().BoolVar(&cleanWait, "wait-for-interfaces", false, "delete networks still in use once their interfaces are gone (the server's clean_wait)")
	return c
}
