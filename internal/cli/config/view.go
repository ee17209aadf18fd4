package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/output"
)

func newCmdView(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "view",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print every setting as a command would use it, and its source: a flag, an
environment variable (named), a config file (path and key), an sf-client file,
or the default. The API key is never printed, only whether it is set and where
it came from.`,
		Example: `  shakectl config view
  SHAKECTL_OUTPUT=yaml shakectl config view --timeout 2m
  shakectl config view -o json | jq -r '."api-url".source'`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			return printConfigView(f.IOStreams, cfg)
		},
	}
}

// configValues renders the resolved values by config key; the key itself
// is reduced to whether it is set.
func configValues(cfg *cmdutil.Config) map[string]string {
	dur := func(d interface{ String() string }, zero bool, none string) string {
		if zero {
			return none
		}
		return d.String()
	}
	key := ""
	if cfg.Key != "" {
		key = "[redacted]"
	}
	out := cfg.Output
	if len(cfg.Columns) > 0 {
		out = "columns=" + strings.Join(cfg.Columns, ",")
	}
	return map[string]string{
		"api-url":                  cfg.APIURL,
		"namespace":                cfg.Namespace,
		"key":                      key,
		"output":                   out,
		"retry-transient-capacity": fmt.Sprint(cfg.RetryTransientCapacity),
		"timeout":                  dur(cfg.Timeout, cfg.Timeout == 0, "none (the --async budget)"),
		"request-timeout":          dur(cfg.RequestTimeout, cfg.RequestTimeout == 0, "30s"),
		"async":                    cfg.Async,
		"no-color":                 fmt.Sprint(cfg.NoColor),
		"quiet":                    fmt.Sprint(cfg.Quiet),
		"debug":                    fmt.Sprint(cfg.Debug),
		"insecure":                 fmt.Sprint(cfg.Insecure),
		"no-headers":               fmt.Sprint(cfg.NoHeaders),
	}
}

func printConfigView(s *output.IOStreams, cfg *cmdutil.Config) error {
	vals := configValues(cfg)
	type entry struct {
		Value  string `json:"value"`
		Source string `json:"source"`
	}
	l := output.List{Columns: []output.Column{{Header: "KEY"}, {Header: "VALUE"}, {Header: "SOURCE"}}}
	obj := map[string]entry{}
	for _, k := range cmdutil.GlobalKeys {
		src, ok := cfg.Sources[k]
		if !ok {
			src = "default"
		}
		l.Rows = append(l.Rows, []string{k, vals[k], src})
		obj[k] = entry{vals[k], src}
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

// Topic is `shakectl help configuration`, and the README's
// Configuration section says the same.
const Topic = `shakectl reads its settings from, highest precedence first:

  1. flags                  --api-url, --namespace, --key, -o, --timeout, …
  2. environment variables  SHAKECTL_<FLAG> for every global flag (e.g.
                            SHAKECTL_OUTPUT, SHAKECTL_TIMEOUT), and
                            sf-client's SHAKENFIST_API_URL,
                            SHAKENFIST_NAMESPACE, SHAKENFIST_KEY and
                            SHAKENFIST_ASYNC (SHAKECTL_ wins over SHAKENFIST_)
  3. the selected context   --context NAME, else SHAKECTL_CONTEXT, else the
                            file's current-context: api-url, namespace and
                            key under "contexts:" (shakectl context …)
  4. the config file        $XDG_CONFIG_HOME/shakectl/config.yaml (default
                            ~/.config/shakectl/config.yaml), or --config
                            FILE, or SHAKECTL_CONFIG; keys are the global
                            flags' names, e.g. "api-url: http://sf/api"
  5. sf-client's files      ~/.shakenfist, else /etc/sf/shakenfist.json
                            (taken whole: never mixed with one another)
  6. defaults

A file that holds the key must be readable by you alone (chmod 600);
shakectl warns when it is not. A bad value names where it came from, e.g.
'invalid output format "xml" … (from environment variable SHAKECTL_OUTPUT)'.

"shakectl config view" prints every value and its source, the key redacted.

The client's flags (--api-url, --namespace, --key, --timeout,
--request-timeout, --async, --retry-transient-capacity, --debug,
--insecure, --context) apply to instance, network, node, namespace, api and config;
parking-probe, sim, demo and version refuse them (exit 2).
`
