package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// NewCmdList builds `shakectl instance list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.NewListCmd(f, instanceResource, cmdutil.ListSpec[client.Instance]{
		Short: "List the namespace's instances",
		Long: `List the instances of the namespace you authenticate to (all namespaces for
the system namespace). Deleted instances are left out unless --all is given.

With -o table on a terminal the list is an aligned table; piped, and with
-o simple, each instance is one tab-separated line without a header:
UUID NAME NAMESPACE CPUS MEMORY(MiB) NODE STATE POWER ADDRESSES.`,
		Example: `  shakectl instance list
  shakectl instance list -o simple | cut -f2
  shakectl instance list -o json | jq -r '.[] | select(.state | endswith("error")) | .uuid'`,
		WithAll: true,
		Fetch:   (*client.Client).ListInstances,
	})
}
