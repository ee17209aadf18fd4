package context

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/configedit"
)

func newCmdUse(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Local(&cobra.Command{
		Use:   "use",
		Short: "Make a context the current one",
	}, func(c *cobra.Command, args []string) error {
		path, err := edit(c, f, args[0], func(doc *configedit.Doc) { doc.CurrentContext = args[0] })
		if err != nil {
			return err
		}
		// Say what changed, as create does.
		f.IOStreams.Notifier().Note("context_used", fmt.Sprintf("current context is now %s (%s)", args[0], path))
		return nil
	})
	return builders.Args(c, "NAME")
}
