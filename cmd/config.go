package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is the resolved configuration of one run. Precedence, highest
// first: flag > environment > config file > sf-client files > default.
type Config struct {
	APIURL                 string
	Namespace              string
	Key                    string
	Output                 string
	RetryTransientCapacity bool
	// Timeout is --timeout; 0 means not given (the async budget applies).
	Timeout  time.Duration
	Async    string
	NoColor  bool
	Quiet    bool
	Debug    bool
	Insecure bool

	// ConfigFile is the config file that was read, "" when none.
	ConfigFile string
	// KeyFrom says where the key came from (flag, env, file path), for
	// warnings; never the key itself.
	KeyFrom string
}

// Output formats accepted by -o.
var outputFormats = []string{"table", "simple", "json", "yaml"}

// Async modes accepted by --async, as sf-client.
var asyncModes = []string{"continue", "pause", "block"}

// AsyncBudget is how long a call may wait in the given async mode when no
// --timeout is given: it bounds --retry-transient-capacity's sleeping and
// instance create's wait for the created state.
func AsyncBudget(mode string) time.Duration {
	switch mode {
	case "block":
		return time.Hour
	case "continue":
		return 0
	default:
		return 60 * time.Second
	}
}

// Deadline is the budget of one command: --timeout when given, else the
// async budget.
func (c *Config) Deadline() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return AsyncBudget(c.Async)
}

// JSONOutput reports whether machine output was asked for; then nothing but
// data goes to stdout and errors are JSON objects on stderr.
func (c *Config) JSONOutput() bool { return c.Output == "json" }

// envBindings lists, per config key, the environment variables that set it,
// first match wins. Every global flag also has SHAKECTL_<FLAG>.
var envBindings = map[string][]string{
	"api-url":   {"SHAKECTL_API_URL", "SHAKENFIST_API_URL"},
	"namespace": {"SHAKECTL_NAMESPACE", "SHAKENFIST_NAMESPACE"},
	"key":       {"SHAKECTL_KEY", "SHAKENFIST_KEY"},
	"async":     {"SHAKECTL_ASYNC", "SHAKENFIST_ASYNC"},
}

// globalKeys are the config keys that follow the global flags' names.
var globalKeys = []string{
	"api-url", "namespace", "key", "output", "retry-transient-capacity",
	"timeout", "async", "no-color", "quiet", "debug", "insecure",
}

// loadConfig resolves the configuration from the root's persistent flags,
// the environment and the files, with a fresh viper per run.
func loadConfig(flags *pflag.FlagSet, env func(string) (string, bool), home string) (*Config, error) {
	v := viper.New()
	for _, k := range globalKeys {
		if fl := flags.Lookup(k); fl != nil {
			if err := v.BindPFlag(k, fl); err != nil {
				return nil, err
			}
		}
	}
	cfg := &Config{}

	// sf-client files are the lowest layer above defaults: ~/.shakenfist,
	// then /etc/sf/shakenfist.json; an unreadable file counts as absent.
	for _, p := range sfClientFiles(home) {
		if sf, ok := readSFClientFile(p); ok {
			setDefaultIf(v, "api-url", sf.APIURL)
			setDefaultIf(v, "namespace", sf.Namespace)
			if sf.Key != "" && !v.IsSet("key") {
				v.SetDefault("key", sf.Key)
				cfg.KeyFrom = p
			}
		}
	}

	// The config file: --config, else $XDG_CONFIG_HOME/shakectl/config.yaml.
	path, explicit := configPath(flags, env, home)
	if path != "" {
		raw, err := os.ReadFile(path)
		switch {
		case err == nil:
			v.SetConfigType("yaml")
			if err := v.ReadConfig(strings.NewReader(string(raw))); err != nil {
				return nil, usageErrorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
			}
			if err := checkConfigKeys(v, path); err != nil {
				return nil, err
			}
			cfg.ConfigFile = path
			if v.InConfig("key") {
				cfg.KeyFrom = path
			}
		case explicit || !errors.Is(err, fs.ErrNotExist):
			if explicit {
				return nil, usageErrorf("cannot read config file %s: %s", path, pathErrReason(err))
			}
			// An implicit file that exists but cannot be read is treated as
			// absent, like the sf-client files.
		}
	}

	// Environment, above the file and below the flags.
	for _, k := range globalKeys {
		names := envBindings[k]
		if names == nil {
			names = []string{"SHAKECTL_" + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))}
		}
		for _, n := range names {
			if val, ok := env(n); ok && val != "" {
				v.Set(k, val)
				if k == "key" {
					cfg.KeyFrom = "environment (" + n + ")"
				}
				break
			}
		}
		// Flags beat everything, including the env set above.
		if fl := flags.Lookup(k); fl != nil && fl.Changed {
			v.Set(k, fl.Value.String())
			if k == "key" {
				cfg.KeyFrom = "flag"
			}
		}
	}

	cfg.APIURL = strings.TrimRight(strings.TrimSpace(v.GetString("api-url")), "/")
	cfg.Namespace = v.GetString("namespace")
	cfg.Key = v.GetString("key")
	cfg.Output = strings.ToLower(v.GetString("output"))
	cfg.Async = strings.ToLower(v.GetString("async"))

	var err error
	if cfg.RetryTransientCapacity, err = boolKey(v, "retry-transient-capacity"); err != nil {
		return nil, err
	}
	for key, dst := range map[string]*bool{"no-color": &cfg.NoColor, "quiet": &cfg.Quiet, "debug": &cfg.Debug, "insecure": &cfg.Insecure} {
		if *dst, err = boolKey(v, key); err != nil {
			return nil, err
		}
	}
	if s := strings.TrimSpace(v.GetString("timeout")); s != "" && s != "0" && s != "0s" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, usageErrorf("invalid timeout %q: want a positive duration such as 30s or 5m", s)
		}
		cfg.Timeout = d
	}
	if !contains(outputFormats, cfg.Output) {
		return nil, usageErrorf("invalid output format %q: want one of %s", cfg.Output, strings.Join(outputFormats, ", "))
	}
	if !contains(asyncModes, cfg.Async) {
		return nil, usageErrorf("invalid async mode %q: want one of %s", cfg.Async, strings.Join(asyncModes, ", "))
	}
	return cfg, nil
}

// checkConfigKeys refuses unknown keys, so a typo in the file is reported
// rather than silently ignored.
func checkConfigKeys(v *viper.Viper, path string) error {
	for _, k := range v.AllKeys() {
		if !v.InConfig(k) {
			continue
		}
		if !contains(globalKeys, k) {
			return usageErrorf("config file %s: unknown key %q (known: %s)", path, k, strings.Join(globalKeys, ", "))
		}
	}
	return nil
}

func boolKey(v *viper.Viper, key string) (bool, error) {
	raw := v.Get(key)
	switch t := raw.(type) {
	case nil:
		return false, nil
	case bool:
		return t, nil
	}
	s := strings.ToLower(strings.TrimSpace(fmt.Sprint(raw)))
	switch s {
	case "1", "t", "true", "yes", "on":
		return true, nil
	case "", "0", "f", "false", "no", "off":
		return false, nil
	}
	return false, usageErrorf("invalid value %q for %s: want true or false", s, key)
}

func setDefaultIf(v *viper.Viper, key, val string) {
	if val != "" && v.GetString(key) == "" {
		v.SetDefault(key, val)
	}
}

func configPath(flags *pflag.FlagSet, env func(string) (string, bool), home string) (string, bool) {
	if fl := flags.Lookup("config"); fl != nil && fl.Changed {
		return fl.Value.String(), true
	}
	if p, ok := env("SHAKECTL_CONFIG"); ok && p != "" {
		return p, true
	}
	if x, ok := env("XDG_CONFIG_HOME"); ok && x != "" {
		return filepath.Join(x, "shakectl", "config.yaml"), false
	}
	if home != "" {
		return filepath.Join(home, ".config", "shakectl", "config.yaml"), false
	}
	return "", false
}

type sfClientFile struct {
	APIURL    string `json:"apiurl"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

func sfClientFiles(home string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".shakenfist"))
	}
	return append(out, "/etc/sf/shakenfist.json")
}

func readSFClientFile(path string) (sfClientFile, bool) {
	var sf sfClientFile
	raw, err := os.ReadFile(path)
	if err != nil {
		return sf, false
	}
	if json.Unmarshal(raw, &sf) != nil {
		return sf, false
	}
	return sf, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func pathErrReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
