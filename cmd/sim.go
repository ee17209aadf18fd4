package cmd

import "github.com/spf13/cobra"

// NewCmdSim groups the local simulators of the servers shakectl talks to.
func NewCmdSim(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "sim <server>",
		Short: "Run a local simulator of a Shakenfist cluster or an atenet router",
		Long: `Run a faithful local stand-in for a server shakectl talks to, so you can
rehearse without a real cluster or router. Simulators listen on loopback by
default and shut down cleanly on Ctrl-C (SIGINT) or SIGTERM.`,
	}
	// Simulator commands register here, one constructor each.
	c.AddCommand(NewCmdSimCluster(f))
	c.AddCommand(NewCmdSimRouter(f))
	return c
}
