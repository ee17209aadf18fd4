package artifact

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdDeleteVersion builds `shakectl artifact delete-version`.
func NewCmdDeleteVersion(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "delete-version",
		Short: "Delete one version of an artifact",
		Long: `Delete the version INDEX of an artifact (artifact versions lists them) and
print the artifact. Deleting its last version deletes the artifact. An
index the artifact does not have is not found (exit 5).`,
		Example: `  shakectl artifact delete-version debian-12.qcow2 3`,
	}, func(s *cmdutil.Session, args []string) error {
		idx, err := strconv.Atoi(args[1])
		if err != nil || idx < 0 {
			return cmdutil.UsageErrorf("INDEX %q is not a version index (a whole number)", args[1])
		}

		a, err := s.Client.DeleteArtifactVersion(s.Ctx, args[0], idx)
		if err != nil {
			return err
		}
		if a == nil {
			return nil
		}
		return s.PrintDetail(artifactResource.Detail(a))
	})
	return builders.Args(c, "ARTIFACT INDEX", complete.ArtifactNames(f))
}
