package context

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func newCmdDelete(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Local(&cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a context",
		Long: `Delete a context from the config file: its entry goes, with the comment
written directly above it and those inside it; every other comment stays
(a title above a blank line, the comments after the last context). When it
was the current context, current-context is left empty ("").`,
		Args: cmdutil.RefArgs("NAME"),
	}, func(c *cobra.Command, args []string) error {
		return edit(c, f, args[0], func(doc *cmdutil.ConfigDoc) {
			delete(doc.Contexts, args[0])
			if doc.CurrentContext == args[0] {
				doc.CurrentContext = ""
			}
		})
	})
}
