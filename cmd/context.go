package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/internal/atomicfile"
	"github.com/shakenfist/shakectl/output"
)

// contextKeys are the settings a context holds: which cloud, as whom.
var contextKeys = []string{"api-url", "namespace", "key"}

// configDoc is the config file as contexts see it: the named contexts and
// the current one, next to the top-level keys (kept as they are).
type configDoc struct {
	CurrentContext string                       `yaml:"current-context,omitempty"`
	Contexts       map[string]map[string]string `yaml:"contexts,omitempty"`
}

// applyContext layers the selected context (--context, else
// SHAKECTL_CONTEXT, else the file's current-context) over the file's
// top-level keys; the environment and flags, applied after, still win:
// flag > env > context > files (hcloud and kubectl order).
func applyContext(v interface{ Set(string, any) }, cfg *Config, flags *pflag.FlagSet, env func(string) (string, bool), path string, raw []byte) error {
	var doc configDoc
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return usageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	name, from := doc.CurrentContext, fmt.Sprintf("config file %s, key current-context", path)
	if n, ok := env("SHAKECTL_CONTEXT"); ok && n != "" {
		name, from = n, "environment variable SHAKECTL_CONTEXT"
	}
	if fl := flags.Lookup("context"); fl != nil && fl.Changed {
		name, from = fl.Value.String(), "flag --context"
	}
	if name == "" {
		return nil
	}
	ctx, ok := doc.Contexts[name]
	if !ok {
		return usageErrorf("no context %q in %s (from %s); \"shakectl context list\" shows them", name, path, from)
	}
	cfg.Context = name
	for _, k := range contextKeys {
		if val := ctx[k]; val != "" {
			v.Set(k, val)
			cfg.Sources[k] = fmt.Sprintf("context %s in %s", name, path)
			if k == "key" {
				cfg.KeyFrom = path
				cfg.Warnings = append(cfg.Warnings, keyFileWarning(path)...)
			}
		}
	}
	return nil
}

// contextFile is the file the context commands edit: --config, else
// SHAKECTL_CONFIG, else $XDG_CONFIG_HOME/shakectl/config.yaml.
func contextFile(c *cobra.Command, f *Factory) (string, error) {
	path, _ := configPath(runFlags(c.Root(), c), f.Getenv, f.HomeDir)
	if path == "" {
		return "", usageErrorf("no config file location: set XDG_CONFIG_HOME or HOME, or pass --config")
	}
	return path, nil
}

// readDoc reads the whole file as a map, so editing contexts keeps the
// other keys, and as a configDoc.
func readDoc(path string) (map[string]any, configDoc, error) {
	all := map[string]any{}
	var doc configDoc
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, doc, nil
	}
	if err != nil {
		return nil, doc, usageErrorf("cannot read config file %s: %s", path, pathErrReason(err))
	}
	if err := yaml.Unmarshal(raw, &all); err != nil {
		return nil, doc, usageErrorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
	}
	if all == nil {
		all = map[string]any{}
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, doc, usageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	return all, doc, nil
}

// writeDoc writes the file atomically with mode 600: it may hold keys, and
// a file readable by others is never left behind.
func writeDoc(path string, all map[string]any, doc configDoc) error {
	if doc.CurrentContext == "" {
		delete(all, "current-context")
	} else {
		all["current-context"] = doc.CurrentContext
	}
	if len(doc.Contexts) == 0 {
		delete(all, "contexts")
	} else {
		all["contexts"] = doc.Contexts
	}
	raw, err := yaml.Marshal(all)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// NewCmdContext builds `shakectl context`, hcloud's and kubectl's contexts:
// named clouds (API URL, namespace, key) in the config file.
func NewCmdContext(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "context <command>",
		Short: "Manage contexts: named clouds (API URL, namespace, key) to switch between",
		Long: `A context names a cloud: its API URL, namespace and key, stored under
"contexts:" in the config file ($XDG_CONFIG_HOME/shakectl/config.yaml),
which is written with mode 600. "shakectl context use NAME" makes one
current; --context NAME or SHAKECTL_CONTEXT selects one for a command.

Precedence, highest first: flags, environment, the selected context, the
config file's top-level keys, sf-client's files.`,
	}
	c.AddCommand(newCmdContextCreate(f), newCmdContextUse(f), newCmdContextList(f), newCmdContextDelete(f), newCmdContextShow(f))
	return c
}

func newCmdContextCreate(f *Factory) *cobra.Command {
	var apiURL, namespace string
	var keyStdin, use bool
	c := &cobra.Command{
		Use:     "create NAME --api-url URL --namespace NS [--key-stdin]",
		Short:   "Create a context",
		Example: `  printf %s "$KEY" | shakectl context create prod --api-url http://sf/api --namespace ops --key-stdin --use`,
		Args:    refArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			path, err := contextFile(c, f)
			if err != nil {
				return err
			}
			all, doc, err := readDoc(path)
			if err != nil {
				return err
			}
			name := args[0]
			if _, exists := doc.Contexts[name]; exists {
				return usageErrorf("context %q exists; delete it first", name)
			}
			ctx := map[string]string{}
			if apiURL != "" {
				ctx["api-url"] = apiURL
			}
			if namespace != "" {
				ctx["namespace"] = namespace
			}
			if keyStdin {
				raw, err := readArgFile("-", f.IOStreams.In)
				if err != nil {
					return err
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
			if err := writeDoc(path, all, doc); err != nil {
				return err
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "context %s saved in %s (mode 600)\n", name, path)
			return nil
		},
	}
	f.defineFlags(c, func() {
		c.Flags().StringVar(&apiURL, "api-url", "", "the cloud's API URL")
		c.Flags().StringVar(&namespace, "namespace", "", "the namespace to authenticate to")
		c.Flags().BoolVar(&keyStdin, "key-stdin", false, "read the API key from standard input (never from argv)")
		c.Flags().BoolVar(&use, "use", false, "make it the current context")
	})
	return c
}

func newCmdContextUse(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make a context the current one",
		Args:  refArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			return editContexts(c, f, args[0], func(doc *configDoc) { doc.CurrentContext = args[0] })
		},
	}
}

func newCmdContextDelete(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a context",
		Args:  refArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			return editContexts(c, f, args[0], func(doc *configDoc) {
				delete(doc.Contexts, args[0])
				if doc.CurrentContext == args[0] {
					doc.CurrentContext = ""
				}
			})
		},
	}
}

func editContexts(c *cobra.Command, f *Factory, name string, edit func(*configDoc)) error {
	path, err := contextFile(c, f)
	if err != nil {
		return err
	}
	all, doc, err := readDoc(path)
	if err != nil {
		return err
	}
	if _, ok := doc.Contexts[name]; !ok {
		return usageErrorf("no context %q in %s", name, path)
	}
	edit(&doc)
	return writeDoc(path, all, doc)
}

func newCmdContextList(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the contexts; the current one is marked ACTIVE",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, doc, cfg, err := readContexts(c, f)
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
				l.Rows = append(l.Rows, []string{active, n, ctx["api-url"], ctx["namespace"]})
				l.Raw = append(l.Raw, contextJSON(n, ctx, n == doc.CurrentContext))
			}
			return output.PrintList(f.IOStreams, cfg.Output, l)
		},
	}
}

func newCmdContextShow(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a context (default: the current one), the key redacted",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			path, doc, cfg, err := readContexts(c, f)
			if err != nil {
				return err
			}
			name := doc.CurrentContext
			if len(args) == 1 {
				name = args[0]
			}
			ctx, ok := doc.Contexts[name]
			if !ok {
				return usageErrorf("no context %q in %s", name, path)
			}
			key := ""
			if ctx["key"] != "" {
				key = "[redacted]"
			}
			return output.PrintDetail(f.IOStreams, cfg.Output, output.Detail{
				Fields: []output.Field{{Name: "name", Value: name}, {Name: "api-url", Value: ctx["api-url"]}, {Name: "namespace", Value: ctx["namespace"]}, {Name: "key", Value: key}, {Name: "active", Value: yesNo(name == doc.CurrentContext)}},
				Raw:    contextJSON(name, ctx, name == doc.CurrentContext),
			})
		},
	}
}

// readContexts is where list and show start: the file, its contexts and
// the run's configuration (for -o).
func readContexts(c *cobra.Command, f *Factory) (string, configDoc, *Config, error) {
	path, err := contextFile(c, f)
	if err != nil {
		return "", configDoc{}, nil, err
	}
	_, doc, err := readDoc(path)
	if err != nil {
		return "", configDoc{}, nil, err
	}
	cfg, err := f.Config()
	return path, doc, cfg, err
}

// contextJSON is a context for -o json, the key reduced to key_set.
func contextJSON(name string, ctx map[string]string, active bool) []byte {
	return rawOf(nil, map[string]any{"name": name, "api_url": ctx["api-url"], "namespace": ctx["namespace"], "key_set": ctx["key"] != "", "active": active})
}
