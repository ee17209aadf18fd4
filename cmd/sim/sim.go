package sim

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmd groups the local simulators of the servers shakectl talks to.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "sim <server>",
		Short: "Run a local simulator of a Shakenfist cluster or an atenet router",
		Long: `Run a local stand-in for a server shakectl talks to, so you can rehearse
without a real cluster or router. Each follows the real server's source where
it can and says where it differs (see its --help):

  cluster  the Shakenfist REST API of shakenfist/shakenfist da448b1a (2024),
           with the capacity-refusal contract of its docs/operator_guide/
           capacity_refusals.md (0c24a714) on top by default;
  router   the atenet router with request parking as agent-substrate/substrate's
           docs/request-parking.md (8a346bde) designs it;
           --model main and --model pr221 rehearse the real routers.

Simulators listen on loopback by default and shut down cleanly on Ctrl-C
(SIGINT) or SIGTERM.`,
	}
	// Simulator commands register here, one constructor each.
	c.AddCommand(NewCmdCluster(f))
	c.AddCommand(NewCmdRouter(f))
	return c
}
