package config

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

func newCmdView(f *cmdutil.Factory) *cobra.Command {
	return cmdutil.Takes(cmdutil.Local(&cobra.Command{
		Use:   "view",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print every setting as a command would use it, and its source: a flag, an
environment variable (named), a config file (path and key), an sf-client file,
or the default. The API key is never printed, only whether it is set and where
it came from.`,
		Example: `  shakectl config view
  SHAKECTL_OUTPUT=yaml shakectl config view --timeout 2m
  shakectl config view -o json | jq -r '."api-url".source'`,
	}, func(_ *cobra.Command, _ []string) error {
		cfg, err := f.Config()
		if err != nil {
			return err
		}
		return printConfigView(f.IOStreams, cfg)
	}), cmdutil.ClientOptionNames()...)
}

func printConfigView(s *output.IOStreams, cfg *cmdutil.Config) error {
	type entry struct {
		Value  string `json:"value"`
		Source string `json:"source"`
	}
	l := output.List{Columns: []output.Column{{Header: "KEY"}, {Header: "VALUE"}, {Header: "SOURCE"}}}
	obj := map[string]entry{}
	for _, setting := range cmdutil.Settings() {
		if !setting.Declared().InFile() {
			continue
		}
		k := setting.Declared().Name
		src, ok := cfg.Sources[k]
		if !ok {
			src = "default"
		}
		val := setting.Show(cfg)
		l.Rows = append(l.Rows, []string{k, val, src})
		obj[k] = entry{val, src}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	switch cfg.Output {
	case output.FormatJSON, output.FormatYAML:
		return output.PrintJSONBody(s, cfg.Output, raw, true)
	}
	return output.PrintList(s, cfg.Output, l)
}
