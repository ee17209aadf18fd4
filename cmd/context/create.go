package context

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/secret"
	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/httpurl"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output/termtext"
)

func newCmdCreate(f *cmdutil.Factory) *cobra.Command {
	var apiURL, namespace string
	var keyStdin, use bool
	c := cmdutil.Local(&cobra.Command{
		Use:     "create",
		Short:   "Create a context",
		Example: `  printf %s "$KEY" | shakectl context create prod --api-url http://sf/api --namespace ops --key-stdin --use`,
	}, func(c *cobra.Command, args []string) error {
		name := args[0]
		// Everything the user gave is checked, and the key read, before
		// the config file is touched: a bad value or Ctrl-C saves
		// nothing.
		if err := checkContextName(name); err != nil {
			return err
		}
		ctx := map[string]string{}
		if apiURL != "" {
			if err := checkAPIURL(apiURL); err != nil {
				return err
			}
			ctx["api-url"] = apiURL
		}
		if namespace != "" {
			if strings.ContainsFunc(namespace, unicode.IsControl) || strings.ContainsAny(namespace, " /") {
				return cmdutil.UsageErrorf("invalid --namespace %q: a namespace is one word, without spaces, slashes or control characters", namespace)
			}
			ctx["namespace"] = namespace
		}
		if keyStdin {
			raw, err := secret.ReadInput(f.Context, f.IOStreams, userfile.Stdin, userfile.Key("--key-stdin"), "API key for context "+name)
			if err != nil {
				return cmdutil.ReadFileError(err)
			}
			key, err := userfile.ParseKey(raw, "--key-stdin")
			if err != nil {
				return cmdutil.ReadFileError(err)
			}
			ctx["key"] = key
		}
		if len(ctx) == 0 {
			// A context of nothing would be saved, and selecting it
			// would change nothing.
			return cmdutil.UsageErrorf("context %s would be empty: give --api-url, --namespace or --key-stdin", name)
		}
		path, err := contextFile(c, f)
		if err != nil {
			return err
		}
		err = updateDoc(f, path, func(doc *configedit.Doc) error {
			if _, exists := doc.Contexts[name]; exists {
				return cmdutil.UsageErrorf("context %q exists; delete it first", name)
			}
			if doc.Contexts == nil {
				doc.Contexts = map[string]map[string]string{}
			}
			doc.Contexts[name] = ctx
			if use {
				doc.CurrentContext = name
			}
			return nil
		})
		if err != nil {
			return err
		}
		f.IOStreams.Notifier().Note("context_saved", fmt.Sprintf("context %s saved in %s (mode 600)", name, path))
		return nil
	})
	builders.Args(c, "NAME --api-url URL --namespace NS [--key-stdin]")
	c.Flags().StringVar(&apiURL, "api-url", "", "the cloud's API URL")
	c.Flags().StringVar(&namespace, "namespace", "", "the namespace to authenticate to")
	c.Flags().BoolVar(&keyStdin, "key-stdin", false, "read the API key from standard input (never from argv)")
	c.Flags().BoolVar(&use, "use", false, "make it the current context")
	return c
}

// maxContextName bounds a context's name: it is typed, listed and used as
// a YAML key.
const maxContextName = 63

// checkContextName accepts the names people give contexts (prod, lab-2,
// alice@sf.example:13000) and refuses what would break a listing, a
// YAML key or a path built from it: control characters (a newline), "/",
// "..", spaces, and anything longer than 63 characters.
func checkContextName(name string) error {
	bad := func(why string) error {
		return cmdutil.UsageErrorf("invalid context name %q: %s", name, why)
	}
	switch {
	case name == "" || len(name) > maxContextName:
		return bad(fmt.Sprintf("want 1 to %d characters", maxContextName))
	case strings.Contains(name, ".."):
		return bad(`".." is not allowed`)
	case name == "current-context" || name == "contexts":
		// The config file's own keys, which a
		// context named after them would be read as or confused with.
		return bad("it is a key of the config file itself")
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && strings.ContainsRune("._@:-", r):
		default:
			return bad("use letters, digits and . _ @ : - (starting with a letter or digit)")
		}
	}
	return nil
}

// checkAPIURL accepts what the client will, on one line: an ftp:// URL
// was saved and failed only later, in every command.
func checkAPIURL(raw string) error {
	_, err := httpurl.Check(raw, httpurl.Rules{Base: true, OneLine: true})
	var ue *httpurl.Error
	if errors.As(err, &ue) {
		return cmdutil.UsageErrorf("invalid --api-url %q: %s", termtext.Line(ue.URL), ue.Reason())
	}
	return err
}
