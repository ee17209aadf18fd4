package artifact

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdMaxVersions builds `shakectl artifact max-versions`.
func NewCmdMaxVersions(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use:   "max-versions",
		Short: "Set how many versions an artifact keeps",
		Long: `Set the most versions the artifact keeps; when a new version would make
more, the oldest go. As shakenfist da448b1a has it, lowering the limit
removes nothing until the next version is added. Prints nothing.`,
		Example: `  shakectl artifact max-versions debian-12.qcow2 5`,
	}, func(s *cmdutil.Session, args []string) error {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return cmdutil.UsageErrorf("N %q is not a number of versions (1 or more)", args[1])
		}

		return s.Client.SetArtifactMaxVersions(s.Ctx, args[0], n)
	})
	return builders.Args(c, "ARTIFACT N", complete.ArtifactNames(f))
}
