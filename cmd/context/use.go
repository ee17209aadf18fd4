package context

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func newCmdUse(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Local(&cobra.Command{
		Use:   "use NAME",
		Short: "Make a context the current one",
		Args:  cmdutil.RefArgs("NAME"),
	}, func(c *cobra.Command, args []string) error {
		return edit(c, f, args[0], func(doc *cmdutil.ConfigDoc) { doc.CurrentContext = args[0] })
	})
}
