package context

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
)

func newCmdList(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Local(&cobra.Command{
		Use:   "list",
		Short: "List the contexts; the current one is marked ACTIVE",
	}, func(c *cobra.Command, _ []string) error {
		_, doc, cfg, err := read(c, f)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(doc.Contexts))
		for n := range doc.Contexts {
			names = append(names, n)
		}
		slices.Sort(names)
		l := output.List{Columns: []output.Column{{Header: "ACTIVE"}, {Header: "NAME"}, {Header: "API-URL"}, {Header: "NAMESPACE"}}}
		for _, n := range names {
			active := ""
			if n == doc.CurrentContext {
				active = "*"
			}
			ctx := doc.Contexts[n]
			l.Rows = append(l.Rows, []string{active, n, redact.URL(ctx["api-url"]), ctx["namespace"]})
			l.Raw = append(l.Raw, contextJSON(n, ctx, n == doc.CurrentContext))
		}
		return output.PrintList(f.IOStreams, cfg.Output, l)
	})
}
