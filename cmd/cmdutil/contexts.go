package cmdutil

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/configfile"
)

// applyContext layers the selected context (--context, else
// SHAKECTL_CONTEXT, else the file's current-context) over the file's
// top-level keys, in the one parsed file; the environment and flags still
// win: flag > env > context > files (hcloud and kubectl order).
func applyContext(file map[string]any, cfg *Config, flags *pflag.FlagSet, env func(string) (string, bool), path string) error {
	doc, err := configfile.Contexts(file)
	if err != nil {
		return UsageErrorf("config file %s: contexts: %s", path, err)
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
		return UsageErrorf("no context %q in %s (from %s); \"shakectl context list\" shows them", name, path, from)
	}
	cfg.Context = name
	for _, k := range configedit.ContextKeys {
		if val := ctx[k]; val != "" {
			file[k] = val
			cfg.Sources[k] = fmt.Sprintf("context %s in %s", name, path)
			if k == "key" {
				cfg.KeyFrom = path
				cfg.Warnings = append(cfg.Warnings, configfile.KeyWarning(path)...)
			}
		}
	}
	return nil
}
