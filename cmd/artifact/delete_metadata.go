package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdDeleteMetadata builds `shakectl artifact delete-metadata`.
func NewCmdDeleteMetadata(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Verb(f, &cobra.Command{
		Use:               "delete-metadata ARTIFACT KEY",
		Short:             "Delete a metadata key of an artifact",
		Long:              `Remove KEY from the artifact's metadata. Prints nothing.`,
		Example:           `  shakectl artifact delete-metadata debian-12.qcow2 owner`,
		Args:              cmdutil.RefArgs("ARTIFACT", "KEY"),
		ValidArgsFunction: cmdutil.CompletePositions(cmdutil.CompleteArtifactNames(f)),
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.DeleteArtifactMetadata(s.Ctx, args[0], args[1])
	})
}
