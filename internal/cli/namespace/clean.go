package namespace

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdClean builds `shakectl namespace clean`.
func NewCmdClean(f *cmdutil.Factory) *cobra.Command {
	var yes bool
	c := cmdutil.NewVerbCmd(f, cmdutil.VerbSpec{
		Use: "clean", Short: "Delete every instance and network of a namespace",
		Long: `Delete every instance and then every network of a namespace, as sf-client's
"namespace clean" does: DELETE /instances, then DELETE /networks with
clean_wait, so that each network goes once its interfaces have. It prints
what the server queued for deletion: instances, networks deleted, networks
it was unable to delete (still in use; clean again once the instances are
gone). It asks for confirmation on a terminal; anywhere else --yes must be
given.`,
		Example: `  shakectl namespace clean ci --yes`,
		Args:    []string{"NAMESPACE"}, Complete: namespaceArg(f),
		Run: func(s *cmdutil.Session, args []string) error {
			if err := cmdutil.Confirm(s, yes, "Delete ALL instances and networks of namespace \""+args[0]+"\""); err != nil {
				return err
			}
			cleaned, err := s.Client.CleanNamespace(s.Ctx, args[0])
			if cleaned == nil || cleaned.Instances == nil {
				return err // nothing was queued
			}
			d := output.Detail{Raw: cmdutil.RawOf(nil, cleaned)}
			d.Fields = append(d.Fields, output.Field{Name: "instances", Value: strings.Join(cleaned.Instances, ",")})
			var nets []output.Field
			nets, err = cmdutil.NetworksDeletedFields(cleaned.Networks, err)
			d.Fields = append(d.Fields, nets...)
			if perr := s.PrintDetail(d); perr != nil && err == nil {
				err = perr
			}
			return err
		},
	})
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&yes, "confirm", false, "the same as --yes (sf-client's spelling)")
	return c
}
