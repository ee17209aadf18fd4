package context

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/userfile"
)

func newCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var apiURL, namespace string
	var keyStdin, use bool
	c := &cobra.Command{
		Use:     "create NAME --api-url URL --namespace NS [--key-stdin]",
		Short:   "Create a context",
		Example: `  printf %s "$KEY" | shakectl context create prod --api-url http://sf/api --namespace ops --key-stdin --use`,
		Args:    cmdutil.RefArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			path, err := contextFile(c, f)
			if err != nil {
				return err
			}
			all, doc, err := cmdutil.ReadDoc(path)
			if err != nil {
				return err
			}
			name := args[0]
			if _, exists := doc.Contexts[name]; exists {
				return cmdutil.UsageErrorf("context %q exists; delete it first", name)
			}
			ctx := map[string]string{}
			if apiURL != "" {
				ctx["api-url"] = apiURL
			}
			if namespace != "" {
				ctx["namespace"] = namespace
			}
			if keyStdin {
				raw, err := userfile.Read(f.Context, f.IOStreams.In, userfile.Stdin, userfile.Bound{Flag: "--key-stdin", Max: 64 << 10})
				if err != nil {
					return &cmdutil.UsageError{Msg: err.Error()}
				}
				if k := strings.TrimSpace(string(raw)); k != "" {
					ctx["key"] = k
				}
			}
			if doc.Contexts == nil {
				doc.Contexts = map[string]map[string]string{}
			}
			doc.Contexts[name] = ctx
			if use {
				doc.CurrentContext = name
			}
			if err := cmdutil.WriteDoc(path, all, doc); err != nil {
				return err
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "context %s saved in %s (mode 600)\n", name, path)
			return nil
		},
	}
	c.Flags().StringVar(&apiURL, "api-url", "", "the cloud's API URL")
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to authenticate to")
	c.Flags().BoolVar(&keyStdin, "key-stdin", false, "read the API key from standard input (never from argv)")
	c.Flags().BoolVar(&use, "use", false, "make it the current context")
	return c
}
