package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdShare builds `shakectl artifact share`.
func NewCmdShare(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "share ARTIFACT",
		Short: "Share an artifact",
		Long: `Share an artifact with every namespace and print it. Only an artifact of the
system namespace may be shared (403, exit 4, otherwise).`,
		Example:           `  shakectl artifact share debian-12.qcow2`,
		Args:              cmdutil.RefArgs("ARTIFACT"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteArtifactNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.ShareArtifact(s.Ctx, args[0])
			if err != nil {
				return err
			}
			return s.PrintDetail(artifactResource.Detail(a))
		},
	}
}
