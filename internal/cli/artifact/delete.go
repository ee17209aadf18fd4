package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdDelete builds `shakectl artifact delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ARTIFACT",
		Short: "Delete an artifact",
		Long: `Delete an artifact, named by UUID or name, and print it as the server
leaves it ("deleted"). Deleting is immediate: artifacts have no deletion
task to wait for (shakenfist da448b1a ArtifactEndpoint.delete). One that
was already deleted prints nothing and says so on stderr.`,
		Example:           `  shakectl artifact delete debian-12.qcow2`,
		Args:              cmdutil.RefArgs("ARTIFACT"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteArtifactNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.DeleteArtifact(s.Ctx, args[0])
			if err != nil {
				return err
			}
			if a == nil {
				alreadyDeleted(s, "artifact "+args[0])
				return nil
			}
			return s.PrintDetail(artifactResource.Detail(a))
		},
	}
}
