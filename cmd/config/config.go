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
		Long: `Show shakectl's effective configuration: "shakectl config view" prints
every setting's value and where it came from (a flag, an environment
variable, the config file and key, a context, or the default), the key
redacted.

Where settings come from, and in which order, is the configuration help
topic: "shakectl help configuration".`,
	}
	c.AddCommand(newCmdView(f))
	return c
}
