package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdShow builds `shakectl instance show`.
func NewCmdShow(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.NewShowCmd(f, instanceResource, cmdutil.ShowSpec[client.Instance]{
		Arg: "INSTANCE", Short: "Show one instance",
		Long: `Show one instance, named by UUID or name, with its interfaces (network, MAC,
IPv4, floating address). -o json and -o yaml print the server's object as
it was sent, including fields shakectl does not know.`,
		Example: `  shakectl instance show web1
  shakectl instance show web1 -o json | jq '.interfaces[].ipv4'`,
		Complete: cmdutil.CompleteInstanceNames(f),
		Get:      (*client.Client).GetInstance,
	})
	return c
}
