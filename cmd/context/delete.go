package context

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/configedit"
)

func newCmdDelete(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Local(&cobra.Command{
		Use:   "delete",
		Short: "Delete a context",
		Long: `Delete a context from the config file: its entry goes, with the comment
written directly above it and those inside it; every other comment stays
(a title above a blank line, the comments after the last context). When it
was the current context, current-context is left empty ("").`,
	}, func(c *cobra.Command, args []string) error {
		wasCurrent := false
		path, err := edit(c, f, args[0], func(doc *configedit.Doc) {
			delete(doc.Contexts, args[0])
			if doc.CurrentContext == args[0] {
				doc.CurrentContext = ""
				wasCurrent = true
			}
		})
		if err != nil {
			return err
		}
		// Say what changed, and that no context is current any more.
		if wasCurrent {
			f.IOStreams.Notifier().Note("context_deleted", fmt.Sprintf("context %s deleted from %s; it was the current context, and now none is (shakectl context use NAME)", args[0], path))
		} else {
			f.IOStreams.Notifier().Note("context_deleted", fmt.Sprintf("context %s deleted from %s", args[0], path))
		}
		return nil
	})
	return builders.Args(c, "NAME")
}
