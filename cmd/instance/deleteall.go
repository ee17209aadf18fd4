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
		Long: `Delete every instance of a namespace (--namespace, else the one your key
belongs to; a system key must name one): DELETE /instances with confirm,
as sf-client's "instance delete-all" sends it. It prints the UUIDs whose
deletion the server queued; they go in the background.`,
		Example: `  shakectl instance delete-all --namespace ci --yes
  shakectl instance delete-all --all-namespaces   # the system key: every namespace, after asking`,
		Delete: func(s *cmdutil.Session, sc builders.Scope) (output.Detail, error) {
			ids, err := s.Client.DeleteAllInstances(s.Ctx, sc.Namespace)
			if err != nil && ids == nil {
				return output.Detail{}, err
			}
			return output.Detail{Raw: cmdutil.RawOf(nil, ids), Fields: []output.Field{{Name: "instances", Value: strings.Join(ids, ",")}}}, err
		},
	})
}
