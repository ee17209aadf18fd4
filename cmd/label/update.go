package label

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// NewCmdUpdate builds `shakectl label update`.
func NewCmdUpdate(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: "update", Short: "Point a label at a blob (creating the label if new)",
		Long: `Add a version to LABEL on the blob BLOB, making it the blob the label
points at, and print the label. A label that does not exist yet is
created. The same blob twice in a row adds no version.`,
		Example: `  shakectl label update debian-prod 578da8b6-eb98-4e10-bb36-e4d4d763d312`,
		PreRunE: func(_ *cobra.Command, args []string) error { return checkLabelName(args[0]) },
	}, func(s *cmdutil.Session, args []string) error {
		a, err := s.Client.UpdateLabel(s.Ctx, args[0], args[1])
		if err != nil {
			return err
		}
		return s.PrintDetail(labelResource.Detail(a))
	})
	return builders.Args(c, "LABEL BLOB", complete.LabelNames(f), complete.BlobUUIDs(f))
}
