package label

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdDelete builds `shakectl label delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete LABEL",
		Short: "Delete a label",
		Long: `Delete a label and print it; its blobs each lose a reference (the blobs
stay while other artifacts use them). An unknown label is a 500 on
shakenfist da448b1a (see label show).`,
		Example:           `  shakectl label delete debian-prod`,
		Args:              cmdutil.RefArgs("LABEL"),
		ValidArgsFunction: cmdutil.ArgsAccepted(cmdutil.CompleteLabelNames(f)),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkLabelName(args[0]); err != nil {
				return err
			}
			s, err := cmdutil.NewSession(f, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Client.DeleteLabel(s.Ctx, args[0])
			if err != nil {
				return err
			}
			if a == nil {
				if !s.Cfg.Quiet {
					fmt.Fprintf(s.F.IOStreams.ErrOut, "label %s was already deleted\n", args[0])
				}
				return nil
			}
			return s.PrintDetail(labelResource.Detail(a))
		},
	}
}
