package artifact

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdUnshare builds `shakectl artifact unshare`.
func NewCmdUnshare(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "unshare ARTIFACT",
		Short: "Unshare an artifact",
		Long: `Stop sharing an artifact and print it. An artifact that is not shared is
refused (403 "artifact not shared", exit 4).`,
		Example:           `  shakectl artifact unshare debian-12.qcow2`,
		Args:              cmdutil.RefArgs("ARTIFACT"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteArtifactNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.UnshareArtifact(s.Ctx, args[0])
			if err != nil {
				return err
			}
			return s.PrintDetail(artifactResource.Detail(a))
		},
	}
}
