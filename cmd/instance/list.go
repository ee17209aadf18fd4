package instance

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// NewCmdList builds `shakectl instance list`.
func NewCmdList(f *cmdutil.Factory) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the namespace's instances",
		Long: `List the instances of the namespace you authenticate to (all namespaces for
the system namespace). Deleted instances are left out unless --all is given.

With -o table on a terminal the list is an aligned table; piped, and with
-o simple, each instance is one tab-separated line without a header:
UUID NAME NAMESPACE CPUS MEMORY(MiB) NODE STATE POWER ADDRESSES.

NODE is the node's name. A 2026 server sends the node's UUID, which
shakectl resolves to the name when the key may list nodes (the system
namespace), and shows as sent otherwise; -o json keeps the server's value.`,
		Example: `  shakectl instance list
  shakectl instance list -o simple | cut -f2
  shakectl instance list -o json | jq -r '.[] | select(.state | endswith("error")) | .uuid'`,
	}
	cmdutil.Verb(f, c, func(s *cmdutil.Session, _ []string) error {
		insts, err := s.Client.ListInstances(s.Ctx, all)
		if err != nil {
			return err
		}
		var names nodeNames
		if rendersFields(s) {
			names = resolveNodeNames(s, insts...)
		}
		return s.PrintList(instanceResourceWith(names).List(insts))
	})
	c.Flags().BoolVarP(&all, "all", "a", false, "include deleted instances")
	return c
}
