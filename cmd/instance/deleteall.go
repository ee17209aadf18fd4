package instance

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdDeleteAll builds `shakectl instance delete-all`.
func NewCmdDeleteAll(f *cmdutil.Factory) *cobra.Command {
	return builders.NewDeleteAllCmd(f, builders.DeleteAllSpec{
		Plural: "instances",
		Long: `Delete every instance of a namespace (--namespace, else the one you
authenticate to; a system key must name one): DELETE /instances with
confirm, as sf-client's "instance delete-all" sends it. It prints the UUIDs
whose deletion the server queued; they go in the background.`,
		Example: `  shakectl instance delete-all --namespace ci --yes`,
		Delete: func(s *cmdutil.Session, ns string) (output.Detail, error) {
			ids, err := s.Client.DeleteAllInstances(s.Ctx, ns)
			return output.Detail{Raw: cmdutil.RawOf(nil, ids), Fields: []output.Field{{Name: "instances", Value: strings.Join(ids, ",")}}}, err
		},
	})
}
