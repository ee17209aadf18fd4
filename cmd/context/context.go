package context

import (
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/configfile"
	"github.com/shakenfist/shakectl/internal/redact"
)

// contextFile is the file the context commands edit: --config, else
// SHAKECTL_CONFIG, else $XDG_CONFIG_HOME/shakectl/config.yaml.
func contextFile(c *cobra.Command, f *cmdutil.Factory) (string, error) {
	path, _ := cmdutil.ConfigPath(cmdutil.RunFlags(c.Root(), c), f.Getenv, f.HomeDir)
	if path == "" {
		return "", cmdutil.UsageErrorf("no config file location: set XDG_CONFIG_HOME or HOME, or pass --config")
	}
	return path, nil
}

// NewCmd builds `shakectl context`, hcloud's and kubectl's contexts:
// named clouds (API URL, namespace, key) in the config file.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
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
	c.AddCommand(newCmdCreate(f), newCmdUse(f), newCmdList(f), newCmdDelete(f), newCmdShow(f))
	return c
}

func edit(c *cobra.Command, f *cmdutil.Factory, name string, edit func(*configedit.Doc)) (string, error) {
	path, err := contextFile(c, f)
	if err != nil {
		return "", err
	}
	return path, updateDoc(f, path, func(doc *configedit.Doc) error {
		if _, ok := doc.Contexts[name]; !ok {
			return cmdutil.UsageErrorf("no context %q in %s", name, path)
		}
		edit(doc)
		return nil
	})
}

// updateDoc rewrites the config file at path as edit says
// (internal/configedit), its errors made the kernel's: a file that
// cannot be read or edited as it is is a usage error (exit 2).
func updateDoc(f *cmdutil.Factory, path string, edit func(*configedit.Doc) error) error {
	return cmdutil.ReadFileError(configedit.UpdateDoc(f.Context, path, edit))
}

// read is where list and show start: the file, its contexts and
// the run's configuration (for -o).
func read(c *cobra.Command, f *cmdutil.Factory) (string, configedit.Doc, *cmdutil.Config, error) {
	path, err := contextFile(c, f)
	if err != nil {
		return "", configedit.Doc{}, nil, err
	}
	doc, err := configfile.ReadDoc(f.Context, path)
	if err != nil {
		return "", configedit.Doc{}, nil, cmdutil.ReadFileError(err)
	}
	cfg, err := f.Config()
	return path, doc, cfg, err
}

// contextJSON is a context for -o json, the key reduced to key_set.
func contextJSON(name string, ctx map[string]string, active bool) []byte {
	return cmdutil.RawOf(nil, map[string]any{"name": name, "api_url": redact.URL(ctx["api-url"]), "namespace": ctx["namespace"], "key_set": ctx["key"] != "", "active": active})
}
