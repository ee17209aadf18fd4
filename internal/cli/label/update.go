package label

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdUpdate builds `shakectl label update`.
func NewCmdUpdate(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "update LABEL BLOB",
		Short: "Point a label at a blob (creating the label if new)",
		Long: `Add a version to LABEL on the blob BLOB, making it the blob the label
points at, and print the label. A label that does not exist yet is
created. The same blob twice in a row adds no version.`,
		Example:           `  shakectl label update debian-prod 578da8b6-eb98-4e10-bb36-e4d4d763d312`,
		Args:              cmdutil.RefArgs("LABEL", "BLOB"),
		ValidArgsFunction: labelThenBlob(f),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkLabelName(args[0]); err != nil {
				return err
			}
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.UpdateLabel(s.Ctx, args[0], args[1])
			if err != nil {
				return err
			}
			return s.PrintDetail(labelResource.Detail(a))
		},
	}
}

// labelThenBlob completes a label name first, then a blob UUID.
func labelThenBlob(f *cmdutil.Factory) cobra.CompletionFunc {
	labels, blobs := cmdutil.CompleteLabelNames(f), cmdutil.CompleteBlobUUIDs(f)
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return labels(c, args, toComplete)
		case 1:
			return blobs(c, args, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}
