package cmdutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/shakenfist/shakectl/internal/userfile"
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
	Timeout time.Duration
	// RequestTimeout is --request-timeout, the bound on each request; 0
	// means the client's default (30s).
	RequestTimeout time.Duration
	Async          string
	NoColor        bool
	Quiet          bool
	Debug          bool
	Insecure       bool

	// OutputExplicit is true when -o came from a flag, the environment or
	// a file rather than the default: an explicit table keeps its header
	// when piped.
	OutputExplicit bool
	// Columns are -o columns=NAME,STATE's choice; Output is then "table".
	Columns []string
	// NoHeaders is --no-headers.
	NoHeaders bool
	// JQ is --jq's expression; it implies -o json.
	JQ string
	// Sources says, per config key, where its value came from ("flag
	// --timeout", "environment variable SHAKECTL_OUTPUT", "config file
	// PATH"), for error messages; keys left at their default are absent.
	Sources map[string]string

	// Context is the selected context's name, "" when none.
	Context string

	// ConfigFile is the config file that was read, "" when none.
	ConfigFile string
	// KeyFrom says where the key came from (flag, env, file path), for
	// warnings; never the key itself.
	KeyFrom string
	// Warnings are printed once to stderr when the configuration is first
	// resolved: a key on the command line, a key in a file others can read,
	// --insecure, an sf-client file that could not be parsed.
	Warnings []string
}

// Output formats accepted by -o.
var OutputFormats = []string{"table", "simple", "json", "yaml"}

// Async modes accepted by --async, as sf-client.
var AsyncModes = []string{"continue", "pause", "block"}

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

// GlobalKeys are the config keys that follow the global flags' names.
var GlobalKeys = []string{
	"api-url", "namespace", "key", "output", "retry-transient-capacity",
	"timeout", "request-timeout", "async", "no-color", "quiet", "debug", "insecure", "no-headers",
}

// LoadConfig resolves the configuration from the root's persistent flags,
// the environment and the files, with a fresh viper per run.
// systemFile is sf-client's system-wide file, "" for /etc/sf/shakenfist.json.
func LoadConfig(flags *pflag.FlagSet, env func(string) (string, bool), home, systemFile string) (*Config, error) {
	v := viper.New()
	// Defaults for commands that lack the flag (the client's flags exist
	// only on client commands), the same as the flags' own.
	v.SetDefault("output", "table")
	v.SetDefault("async", "pause")
	for _, k := range GlobalKeys {
		if fl := flags.Lookup(k); fl != nil {
			if err := v.BindPFlag(k, fl); err != nil {
				return nil, err
			}
		}
	}
	cfg := &Config{Sources: map[string]string{}}

	// sf-client files are the lowest layer above defaults: ~/.shakenfist,
	// else /etc/sf/shakenfist.json. The first usable file is taken whole,
	// never mixed with the other: a system key must not be sent to the URL a
	// user's own file names. An unreadable file counts as absent.
	for _, p := range sfClientFiles(home, systemFile) {
		sf, ok, warning := readSFClientFile(p)
		if warning != "" {
			cfg.Warnings = append(cfg.Warnings, warning)
		}
		if !ok {
			continue
		}
		for k, val := range map[string]string{"api-url": sf.APIURL, "namespace": sf.Namespace, "key": sf.Key} {
			if val != "" {
				cfg.Sources[k] = p
			}
		}
		setDefaultIf(v, "api-url", sf.APIURL)
		setDefaultIf(v, "namespace", sf.Namespace)
		if sf.Key != "" {
			v.SetDefault("key", sf.Key)
			cfg.KeyFrom = p
			cfg.Warnings = append(cfg.Warnings, keyFileWarning(p)...)
		}
		break
	}

	// The config file: --config, else $XDG_CONFIG_HOME/shakectl/config.yaml.
	path, explicit := ConfigPath(flags, env, home)
	if path != "" {
		raw, err := userfile.Read(context.Background(), nil, path, configFileBound)
		switch {
		case err == nil:
			v.SetConfigType("yaml")
			if err := v.ReadConfig(strings.NewReader(string(raw))); err != nil {
				return nil, UsageErrorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
			}
			if err := checkConfigKeys(v, path); err != nil {
				return nil, err
			}
			cfg.ConfigFile = path
			if err := applyContext(v, cfg, flags, env, path, raw); err != nil {
				return nil, err
			}
			for _, k := range GlobalKeys {
				if v.InConfig(k) {
					cfg.Sources[k] = fmt.Sprintf("config file %s, key %s", path, k)
				}
			}
			if v.InConfig("key") && v.GetString("key") != "" {
				cfg.KeyFrom = path
				cfg.Warnings = append(cfg.Warnings, keyFileWarning(path)...)
			}
		case explicit || !errors.Is(err, fs.ErrNotExist):
			if explicit {
				return nil, &UsageError{Msg: err.Error()}
			}
			// An implicit file that exists but cannot be read is treated as
			// absent, like the sf-client files.
		}
	}

	if cfg.ConfigFile == "" {
		// A context was asked for, but there is no file to hold it.
		if fl := flags.Lookup("context"); fl != nil && fl.Changed {
			return nil, UsageErrorf("--context %s: no config file %s; create the context with \"shakectl context create\"", fl.Value.String(), path)
		}
		if n, ok := env("SHAKECTL_CONTEXT"); ok && n != "" {
			return nil, UsageErrorf("SHAKECTL_CONTEXT=%s: no config file %s; create the context with \"shakectl context create\"", n, path)
		}
	}

	// Environment, above the file and below the flags.
	for _, k := range GlobalKeys {
		names := envBindings[k]
		if names == nil {
			names = []string{"SHAKECTL_" + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))}
		}
		for _, n := range names {
			if val, ok := env(n); ok && val != "" {
				v.Set(k, val)
				cfg.Sources[k] = "environment variable " + n
				if k == "key" {
					cfg.KeyFrom = "environment (" + n + ")"
				}
				break
			}
		}
		// Flags beat everything, including the env set above.
		if fl := flags.Lookup(k); fl != nil && fl.Changed {
			v.Set(k, fl.Value.String())
			cfg.Sources[k] = "flag --" + k
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

	// A bad value names where it came from, so SHAKECTL_OUTPUT=xml or
	// "timeout: forever" in a file is found at once.
	from := func(key string, err error) error {
		src, ok := cfg.Sources[key]
		if !ok {
			return err
		}
		var u *UsageError
		if errors.As(err, &u) {
			return &UsageError{Msg: u.Msg + " (from " + src + ")"}
		}
		return err
	}
	var err error
	if cfg.RetryTransientCapacity, err = boolKey(v, "retry-transient-capacity"); err != nil {
		return nil, from("retry-transient-capacity", err)
	}
	for key, dst := range map[string]*bool{"no-color": &cfg.NoColor, "quiet": &cfg.Quiet, "debug": &cfg.Debug, "insecure": &cfg.Insecure, "no-headers": &cfg.NoHeaders} {
		if *dst, err = boolKey(v, key); err != nil {
			return nil, from(key, err)
		}
	}
	if cfg.Timeout, err = parseTimeout(v.GetString("timeout")); err != nil {
		return nil, from("timeout", err)
	}
	if cfg.RequestTimeout, err = parseTimeout(v.GetString("request-timeout")); err != nil {
		return nil, from("request-timeout", err)
	}
	_, cfg.OutputExplicit = cfg.Sources["output"]
	if _, ok := strings.CutPrefix(cfg.Output, "columns="); ok {
		// The column names as typed, for the error that names one.
		spec := strings.TrimSpace(v.GetString("output"))[len("columns="):]
		// hcloud's -o columns=NAME,STATE: a table of those columns.
		for _, c := range strings.Split(spec, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cfg.Columns = append(cfg.Columns, c)
			}
		}
		if len(cfg.Columns) == 0 {
			return nil, from("output", UsageErrorf("-o columns= needs column names, e.g. columns=NAME,STATE"))
		}
		cfg.Output = "table"
	}
	if !Contains(OutputFormats, cfg.Output) {
		return nil, from("output", UsageErrorf("invalid output format %q: want one of %s or columns=NAME,…", cfg.Output, strings.Join(OutputFormats, ", ")))
	}
	if !Contains(AsyncModes, cfg.Async) {
		return nil, from("async", UsageErrorf("invalid async mode %q: want one of %s", cfg.Async, strings.Join(AsyncModes, ", ")))
	}
	if fl := flags.Lookup("jq"); fl != nil && fl.Changed {
		// --jq filters JSON, so it implies -o json (gh).
		cfg.JQ = fl.Value.String()
		if cfg.OutputExplicit && cfg.Output != "json" {
			return nil, UsageErrorf("--jq filters JSON and cannot be combined with -o %s", cfg.Output)
		}
		cfg.Output = "json"
	}
	if cfg.KeyFrom == "flag" {
		cfg.Warnings = append(cfg.Warnings, "--key on the command line is visible to other users of this machine (ps, /proc); prefer SHAKENFIST_KEY or a config file with mode 600")
	}
	if cfg.Insecure {
		cfg.Warnings = append(cfg.Warnings, "--insecure: the API server's TLS certificate is not verified; anyone on the path can read the key and answer in the server's place")
	}
	return cfg, nil
}

// parseTimeout reads --timeout: a Go duration ("90s", "5m"), or a bare
// number of seconds as sf-client and most shells' users would write it.
// Empty or zero means no timeout.
func parseTimeout(raw string) (time.Duration, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if n, nerr := strconv.ParseFloat(s, 64); nerr == nil && n >= 0 && n <= 1e9 {
			d, err = time.Duration(n*float64(time.Second)), nil
		}
	}
	if err != nil || d < 0 {
		return 0, UsageErrorf("invalid timeout %q: want a duration such as 30s or 5m", s)
	}
	return d, nil
}

// keyFileWarning names a file that holds the API key but can be read by
// other users, and the command that fixes it.
func keyFileWarning(path string) []string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o044 == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s holds an API key and is readable by other users (mode %04o); run: chmod 600 %s", path, st.Mode().Perm(), path)}
}

// checkConfigKeys refuses unknown keys, so a typo in the file is reported
// rather than silently ignored, and values that are not scalars (a list
// where a URL belongs would otherwise read as "").
func checkConfigKeys(v *viper.Viper, path string) error {
	for _, k := range v.AllKeys() {
		if !v.InConfig(k) || k == "current-context" || strings.HasPrefix(k, "contexts.") {
			continue
		}
		if !Contains(GlobalKeys, k) {
			return UsageErrorf("config file %s: unknown key %q (known: %s)", path, k, strings.Join(GlobalKeys, ", "))
		}
		switch v.Get(k).(type) {
		case nil, string, bool, int, int64, uint64, float64:
		default:
			return UsageErrorf("config file %s: %s must be a single value, not a list or a map", path, k)
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
	return false, UsageErrorf("invalid value %q for %s: want true or false", s, key)
}

func setDefaultIf(v *viper.Viper, key, val string) {
	if val != "" && v.GetString(key) == "" {
		v.SetDefault(key, val)
	}
}

func ConfigPath(flags *pflag.FlagSet, env func(string) (string, bool), home string) (string, bool) {
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

// DefaultSystemConfigFile is sf-client's system-wide configuration.
const DefaultSystemConfigFile = "/etc/sf/shakenfist.json"

func sfClientFiles(home, systemFile string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".shakenfist"))
	}
	if systemFile == "" {
		systemFile = DefaultSystemConfigFile
	}
	return append(out, systemFile)
}

// readSFClientFile reads one sf-client file. A file that does not exist or
// cannot be read counts as absent; one that exists but is not the expected
// JSON is ignored with a warning, since sf-client would refuse it too.
func readSFClientFile(path string) (sf sfClientFile, ok bool, warning string) {
	raw, err := userfile.Read(context.Background(), nil, path, configFileBound)
	if err != nil {
		return sf, false, ""
	}
	if err := json.Unmarshal(raw, &sf); err != nil {
		return sf, false, fmt.Sprintf("ignoring %s: not valid JSON (%s)", path, firstLine(err.Error()))
	}
	return sf, true, ""
}

func Contains(list []string, s string) bool {
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

func PathErrReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// configFileBound bounds a configuration file, shakectl's or sf-client's: a
// few keys and contexts; a file far larger is not one.
var configFileBound = userfile.Bound{Flag: "config file", Max: 1 << 20}
