package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdSetMetadata builds `shakectl artifact set-metadata`.
func NewCmdSetMetadata(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Verb(f, &cobra.Command{
		Use:   "set-metadata ARTIFACT KEY VALUE",
		Short: "Set a metadata key of an artifact",
		Long: `Set KEY to VALUE (a string) in the artifact's metadata; artifact show
prints it. The server refuses an empty value. Prints nothing.`,
		Example:           `  shakectl artifact set-metadata debian-12.qcow2 owner ci`,
		Args:              cmdutil.RefArgs("ARTIFACT", "KEY", "VALUE"),
		ValidArgsFunction: cmdutil.CompletePositions(cmdutil.CompleteArtifactNames(f)),
	}, func(s *cmdutil.Session, args []string) error {
		return s.Client.SetArtifactMetadata(s.Ctx, args[0], args[1], args[2])
	})
}
