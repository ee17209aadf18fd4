package context

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
)

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	c := cmdutil.Local(&cobra.Command{
		Use:   "show",
		Short: "Show a context (default: the current one), the key redacted",
	}, func(c *cobra.Command, args []string) error {
		path, doc, cfg, err := read(c, f)
		if err != nil {
			return err
		}
		name := doc.CurrentContext
		if len(args) == 1 {
			name = args[0]
		}
		ctx, ok := doc.Contexts[name]
		if !ok {
			return cmdutil.UsageErrorf("no context %q in %s", name, path)
		}
		key := ""
		if ctx["key"] != "" {
			key = redact.Marker
		}
		return output.PrintDetail(f.IOStreams, cfg.Output, output.Detail{
			Fields: []output.Field{{Name: "name", Value: name}, {Name: "api-url", Value: redact.URL(ctx["api-url"])}, {Name: "namespace", Value: ctx["namespace"]}, {Name: "key", Value: key}, {Name: "active", Value: builders.YesNo(name == doc.CurrentContext)}},
			Raw:    contextJSON(name, ctx, name == doc.CurrentContext),
		})
	})
	return builders.Args(c, "[NAME]")
}
