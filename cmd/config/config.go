package config

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the commands about shakectl's own configuration.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "config <command>",
		Short: "Show shakectl's effective configuration",
		Long:  Topic(),
	}
	c.AddCommand(newCmdView(f))
	return c
}
