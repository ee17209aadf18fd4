package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/userfile"
)

// ConfigDoc is the config file as contexts see it (internal/configedit
// writes it).
type ConfigDoc = configedit.Doc

// applyContext layers the selected context (--context, else
// SHAKECTL_CONTEXT, else the file's current-context) over the file's
// top-level keys, in the one parsed file; the environment and flags still
// win: flag > env > context > files (hcloud and kubectl order).
func applyContext(file map[string]any, cfg *Config, flags *pflag.FlagSet, env func(string) (string, bool), path string) error {
	doc, err := docOf(file)
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
				cfg.Warnings = append(cfg.Warnings, keyFileWarning(path)...)
			}
		}
	}
	return nil
}

// docOf reads the contexts out of the parsed file.
func docOf(file map[string]any) (ConfigDoc, error) {
	var doc ConfigDoc
	switch cur := file["current-context"].(type) {
	case nil:
	case string:
		doc.CurrentContext = cur
	default:
		return doc, errors.New("current-context must be a name")
	}
	switch all := file["contexts"].(type) {
	case nil:
	case map[string]any:
		doc.Contexts = map[string]map[string]string{}
		for name, c := range all {
			m, ok := c.(map[string]any)
			if !ok && c != nil {
				return doc, fmt.Errorf("context %s must be a map of keys", name)
			}
			doc.Contexts[name] = map[string]string{}
			for k, val := range m {
				doc.Contexts[name][k] = stringOf(val)
			}
		}
	default:
		return doc, errors.New("contexts must be a map of named contexts")
	}
	return doc, nil
}

// ReadDoc reads the whole file as a map, so editing contexts keeps the
// other keys, and as a ConfigDoc.
func ReadDoc(ctx context.Context, path string) (map[string]any, ConfigDoc, error) {
	all := map[string]any{}
	var doc ConfigDoc
	raw, err := userfile.Read(ctx, nil, path, configFileBound)
	if errors.Is(err, fs.ErrNotExist) {
		return all, doc, nil
	}
	if err != nil {
		return nil, doc, ReadFileError(err)
	}
	if err := oneDocument(path, raw); err != nil {
		return nil, doc, err
	}
	if err := yaml.Unmarshal(raw, &all); err != nil {
		return nil, doc, UsageErrorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
	}
	if all == nil {
		all = map[string]any{}
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, doc, UsageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	return all, doc, nil
}

// oneDocument is configedit.OneDocument as a usage error (exit 2): the
// config file holds one YAML document, never a second that is ignored.
func oneDocument(path string, raw []byte) error {
	var ce *configedit.Error
	if err := configedit.OneDocument(path, raw); errors.As(err, &ce) {
		return &UsageError{Msg: ce.Msg}
	}
	return nil
}
