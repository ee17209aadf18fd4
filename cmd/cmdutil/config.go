package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/shakenfist/shakectl/internal/configfile"
	"github.com/shakenfist/shakectl/output"
)

// Config is the resolved configuration of one run. Precedence, highest
// first: flag > environment > config file > sf-client files > default.
type Config struct {
	APIURL                 string
	Namespace              string
	Key                    string
	Output                 output.Format
	RetryTransientCapacity bool
	// Timeout is --timeout; 0 means not given (the async budget applies).
	Timeout time.Duration
	// RequestTimeout is --request-timeout, the bound on each request; 0
	// means the client's default (30s).
	RequestTimeout time.Duration
	Async          AsyncMode
	NoColor        bool
	Quiet          bool
	Debug          bool
	Insecure       bool

	// OutputExplicit is true when -o came from a flag, the environment or
	// a file rather than the default: an explicit table keeps its header
	// when piped.
	OutputExplicit bool
	// Columns are -o columns=NAME,STATE's choice; Output is then table.
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
	// ConfigPath is the config file this run reads or would read (--config,
	// SHAKECTL_CONFIG, else the XDG default), read or not: the file a hint
	// tells the user to write.
	ConfigPath string
	// KeyFrom says where the key came from (flag, env, file path), for
	// warnings; never the key itself.
	KeyFrom string
	// Warnings are printed once to stderr when the configuration is first
	// resolved: a key on the command line, a key in a file others can read,
	// --insecure, an sf-client file that could not be parsed.
	Warnings []string
}

// Deadline is the budget of one command: --timeout when given, else the
// async budget.
func (c *Config) Deadline() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return c.Async.Budget()
}

// JSONOutput reports whether machine output was asked for; then nothing but
// data goes to stdout and errors are JSON objects on stderr.
func (c *Config) JSONOutput() bool { return c.Output == output.FormatJSON }

// LoadConfig resolves the configuration of one run from the flags of the
// command that runs, the environment and the files, with a fresh viper.
// Viper orders the layers: flag and environment (one bound value per
// setting, layeredValue) over the selected context and the config file
// (one map, read and parsed once) over sf-client's files and the table's
// defaults. systemFile is sf-client's system-wide file, "" for
// /etc/sf/shakenfist.json. ctx is the run's: a config file that is a FIFO
// or a device waits for a writer, and Ctrl-C or SIGTERM must end that wait
// at once with the signal's exit code.
func LoadConfig(ctx context.Context, flags *pflag.FlagSet, env func(string) (string, bool), home, systemFile string) (*Config, error) {
	v := viper.New()
	cfg := &Config{Sources: map[string]string{}}
	settings := table()
	for _, s := range settings {
		if s.Declared().InFile() {
			v.SetDefault(s.Declared().Name, s.defaultText())
		}
	}

	// sf-client files are the lowest layer above defaults: ~/.shakenfist,
	// else /etc/sf/shakenfist.json. The first usable file is taken whole,
	// never mixed with the other: a system key must not be sent to the URL a
	// user's own file names. An unreadable file counts as absent.
	sf, p, warnings, err := configfile.ReadSFClientFiles(ctx, home, systemFile)
	if err != nil {
		return nil, err
	}
	cfg.Warnings = append(cfg.Warnings, warnings...)
	for k, val := range map[string]string{"api-url": sf.APIURL, "namespace": sf.Namespace, "key": sf.Key} {
		if val != "" {
			v.SetDefault(k, val)
			cfg.Sources[k] = p
		}
	}
	if sf.Key != "" {
		cfg.KeyFrom = p
		cfg.Warnings = append(cfg.Warnings, configfile.KeyWarning(p)...)
	}

	// The config file: --config, else $XDG_CONFIG_HOME/shakectl/config.yaml,
	// and in it the selected context.
	path, explicit := ConfigPath(flags, env, home)
	cfg.ConfigPath = path
	if path != "" {
		file, err := configfile.Read(ctx, path, FileKeys())
		var ce *configfile.Error
		switch {
		case configfile.Interrupted(err):
			// The signal's error, not a usage error: exit 130 or 143.
			return nil, err
		case errors.As(err, &ce):
			return nil, &UsageError{Msg: ce.Msg}
		case err == nil:
			cfg.ConfigFile = path
			for k := range file {
				if slices.Contains(FileKeys(), k) {
					cfg.Sources[k] = fmt.Sprintf("config file %s, key %s", path, k)
				}
			}
			if k, ok := file["key"]; ok && k != nil && fmt.Sprint(k) != "" {
				cfg.KeyFrom = path
				cfg.Warnings = append(cfg.Warnings, configfile.KeyWarning(path)...)
			}
			if err := applyContext(file, cfg, flags, env, path); err != nil {
				return nil, err
			}
			if err := v.MergeConfigMap(file); err != nil {
				return nil, UsageErrorf("config file %s: %s", path, err)
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

	// The flag and the environment, above everything else.
	for _, setting := range settings {
		s := setting.Declared()
		if s.Selector {
			continue
		}
		lv := layeredValue{name: s.Name, flag: flags.Lookup(s.Name)}
		for _, n := range s.EnvNames() {
			if val, ok := env(n); ok && val != "" {
				lv.env, lv.envName = val, n
				break
			}
		}
		switch {
		case lv.flag != nil && lv.flag.Changed:
			cfg.Sources[s.Name] = "flag --" + s.Name
			if s.Name == "key" {
				cfg.KeyFrom = "flag"
			}
		case lv.envName != "":
			cfg.Sources[s.Name] = "environment variable " + lv.envName
			if s.Name == "key" {
				cfg.KeyFrom = "environment (" + lv.envName + ")"
			}
		}
		if err := v.BindFlagValue(s.Name, lv); err != nil {
			return nil, err
		}
	}

	// Every value, parsed once; a bad one names where it came from, so
	// SHAKECTL_OUTPUT=xml or "timeout: forever" in a file is found at once.
	for _, s := range settings {
		name := s.Declared().Name
		if err := s.apply(cfg, v.Get(name)); err != nil {
			var u *UsageError
			if src, ok := cfg.Sources[name]; ok && errors.As(err, &u) {
				return nil, &UsageError{Msg: u.Msg + " (from " + src + ")"}
			}
			return nil, err
		}
	}
	_, cfg.OutputExplicit = cfg.Sources["output"]
	if cfg.JQ != "" {
		// --jq filters JSON, so it implies -o json (gh).
		if cfg.OutputExplicit && cfg.Output != output.FormatJSON {
			return nil, UsageErrorf("--jq filters JSON and cannot be combined with -o %s", cfg.Output)
		}
		cfg.Output = output.FormatJSON
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
		// Its Range refuses what is negative or too long.
		if n, nerr := strconv.ParseFloat(s, 64); nerr == nil && math.Abs(n) <= 1e9 {
			d, err = time.Duration(n*float64(time.Second)), nil
		}
	}
	if err != nil {
		return 0, UsageErrorf("invalid timeout %q: want a duration such as 30s or 5m", s)
	}
	return d, nil
}

// ConfigPath is the config file this run reads: --config, else
// SHAKECTL_CONFIG (explicit: it must exist), else the XDG default.
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
