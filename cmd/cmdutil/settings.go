package cmdutil

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
)

// Every global setting is declared once, here: its flag, the environment
// variables and config-file key that also set it, its default and help,
// its completion, whether it is a secret, and which commands take it. The
// flags (AddSettingFlags), the resolution (LoadConfig), `config view`, the
// "configuration" help topic (SettingsHelp) and the refusal of client flags
// elsewhere (CheckClientFlags) are all made from this table, so adding a
// setting is one entry here plus the code that uses its Config field.

// Scope says which commands a setting applies to.
type Scope int

const (
	// EveryCommand settings are the root's: output, colour, the config
	// file.
	EveryCommand Scope = iota
	// ClientCommands settings configure the Shakenfist API client: only
	// the client command groups accept their flags (CheckClientFlags).
	ClientCommands
)

// Setting is one row of the table.
type Setting struct {
	// Name is the flag's name and the config file's key.
	Name      string
	Shorthand string
	Bool      bool // a boolean flag; otherwise a string, or Value's type
	// Value makes the flag's typed value (AsyncMode, Output), which parses
	// what the flag is given; nil for a string or boolean flag.
	Value   func() pflag.Value
	Default string
	Usage   string
	// Env are the environment variables that set it, the first set one
	// winning; nil means SHAKECTL_<NAME>.
	Env   []string
	Scope Scope
	// Where the value may come from besides the flag: FlagOnly settings
	// come from the flag alone; Selector settings (--config, --context)
	// choose a file or a part of it, so they have no key in the file; a
	// Contextual setting may also be set by the selected context.
	FlagOnly   bool
	Selector   bool
	Contextual bool
	// Secret values are never shown (config view says only whether one is
	// set).
	Secret bool
	// Complete completes the flag's value; nil leaves the shell's file
	// completion.
	Complete func(f *Factory) cobra.CompletionFunc
	// Apply puts the resolved value (as viper has it: a string, or a
	// bool or number from the file) into cfg, or says why it is invalid;
	// nil for selectors, which LoadConfig reads itself.
	Apply func(cfg *Config, raw any) error
	// Show is the value config view prints.
	Show func(cfg *Config) string
}

// EnvNames are the environment variables that set s, first winning.
func (s Setting) EnvNames() []string {
	switch {
	case s.FlagOnly:
		return nil
	case s.Env != nil:
		return s.Env
	}
	return []string{"SHAKECTL_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))}
}

// InFile says whether the config file (and so config view) has the key.
func (s Setting) InFile() bool { return !s.FlagOnly && !s.Selector }

// Settings is the table, in the order config view and the help topic list
// the settings.
func Settings() []Setting {
	return []Setting{
		{Name: "api-url", Scope: ClientCommands, Contextual: true,
			Usage: "Shakenfist API URL: http://HOST:13000, or where your load balancer serves it (2024's Apache: http://HOST/api) (client commands)",
			Env:   []string{"SHAKECTL_API_URL", "SHAKENFIST_API_URL"}, Complete: noFiles,
			Apply: func(c *Config, raw any) error {
				c.APIURL = strings.TrimRight(strings.TrimSpace(stringOf(raw)), "/")
				return nil
			},
			// A password in the URL is a secret too (issue 28, item 10).
			Show: func(c *Config) string { return redact.URL(c.APIURL) }},
		{Name: "namespace", Scope: ClientCommands, Contextual: true,
			Usage: "namespace to authenticate to (client commands)",
			Env:   []string{"SHAKECTL_NAMESPACE", "SHAKENFIST_NAMESPACE"},
			Complete: func(f *Factory) cobra.CompletionFunc {
				if f.CompleteNamespaces == nil {
					return cobra.NoFileCompletions
				}
				return f.CompleteNamespaces(f)
			},
			Apply: func(c *Config, raw any) error { c.Namespace = stringOf(raw); return nil },
			Show:  func(c *Config) string { return c.Namespace }},
		{Name: "key", Scope: ClientCommands, Contextual: true, Secret: true,
			Usage: "API key (prefer SHAKENFIST_KEY or a config file: argv is visible to other users)",
			Env:   []string{"SHAKECTL_KEY", "SHAKENFIST_KEY"}, Complete: noFiles,
			Apply: func(c *Config, raw any) error { c.Key = stringOf(raw); return nil },
			Show: func(c *Config) string {
				if c.Key != "" {
					return "[redacted]"
				}
				return ""
			}},
		{Name: "output", Shorthand: "o", Default: string(output.FormatTable), Scope: EveryCommand,
			Usage:    "output format: table, simple, json, yaml, or columns=NAME,STATE,… (a table of those columns)",
			Value:    func() pflag.Value { return new(Output) },
			Complete: func(*Factory) cobra.CompletionFunc { return fixedValues(output.Formats, outputHelp) },
			Apply: func(c *Config, raw any) error {
				o, err := ParseOutput(stringOf(raw))
				c.Output, c.Columns = o.Format, o.Columns
				return err
			},
			Show: func(c *Config) string { return Output{Format: c.Output, Columns: c.Columns}.String() }},
		boolSetting("retry-transient-capacity", ClientCommands, "retry creates refused with a transient 507, as the server's Retry-After says (at most 5 attempts, within the deadline)",
			func(c *Config) *bool { return &c.RetryTransientCapacity }),
		{Name: "timeout", Scope: ClientCommands, Complete: noFiles,
			Usage: "deadline for the whole command, e.g. 90s (default: the --async budget)",
			Apply: func(c *Config, raw any) (err error) { c.Timeout, err = parseTimeout(stringOf(raw)); return err },
			Show:  func(c *Config) string { return durationOr(c.Timeout, "none (the --async budget)") }},
		{Name: "request-timeout", Scope: ClientCommands, Complete: noFiles,
			Usage: "bound on each request, its answer included, e.g. 10s (default 30s); --timeout bounds the whole command",
			Apply: func(c *Config, raw any) (err error) { c.RequestTimeout, err = parseTimeout(stringOf(raw)); return err },
			Show:  func(c *Config) string { return durationOr(c.RequestTimeout, "30s") }},
		{Name: "async", Default: string(AsyncPause), Scope: ClientCommands,
			Usage:    "how long to wait for slow operations: continue (0), pause (60s) or block (1h)",
			Env:      []string{"SHAKECTL_ASYNC", "SHAKENFIST_ASYNC"},
			Value:    func() pflag.Value { return new(AsyncMode) },
			Complete: func(*Factory) cobra.CompletionFunc { return fixedValues(AsyncModes, asyncHelp) },
			Apply: func(c *Config, raw any) (err error) {
				c.Async, err = ParseAsyncMode(stringOf(raw))
				return err
			},
			Show: func(c *Config) string { return string(c.Async) }},
		boolSetting("no-color", EveryCommand, "never colour the output", func(c *Config) *bool { return &c.NoColor }),
		boolSetting("quiet", EveryCommand, "print no progress or retry lines on stderr", func(c *Config) *bool { return &c.Quiet }),
		boolSetting("debug", ClientCommands, "log every API request and answer on stderr: URL, headers, bodies up to 4 KiB, timing (secrets redacted)",
			func(c *Config) *bool { return &c.Debug }),
		boolSetting("insecure", ClientCommands, "do not verify the API server's TLS certificate (dangerous)", func(c *Config) *bool { return &c.Insecure }),
		boolSetting("no-headers", EveryCommand, "print tables without their header line", func(c *Config) *bool { return &c.NoHeaders }),
		{Name: "jq", Scope: EveryCommand, FlagOnly: true, Complete: noFiles,
			Usage: "filter JSON output with a jq expression (implies -o json), e.g. '.[].name'",
			Apply: func(c *Config, raw any) error { c.JQ = stringOf(raw); return nil }},
		{Name: "context", Scope: ClientCommands, Selector: true,
			Usage: "use this context from the config file (default: SHAKECTL_CONTEXT, else current-context)"},
		{Name: "config", Scope: EveryCommand, Selector: true,
			Usage: "config file (default $XDG_CONFIG_HOME/shakectl/config.yaml)"},
	}
}

// FileKeys are the keys a config file may hold, in the table's order.
func FileKeys() []string {
	var keys []string
	for _, s := range Settings() {
		if s.InFile() {
			keys = append(keys, s.Name)
		}
	}
	return keys
}

func boolSetting(name string, scope Scope, usage string, field func(*Config) *bool) Setting {
	return Setting{Name: name, Bool: true, Default: "false", Scope: scope, Usage: usage,
		Apply: func(c *Config, raw any) (err error) { *field(c), err = parseBool(raw, name); return err },
		Show:  func(c *Config) string { return fmt.Sprint(*field(c)) }}
}

func noFiles(*Factory) cobra.CompletionFunc { return cobra.NoFileCompletions }

// fixedValues completes a typed setting's values.
func fixedValues[T ~string](values []T, desc map[string]string) cobra.CompletionFunc {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = string(v)
	}
	return FixedWithDesc(names, desc)
}

func durationOr(d time.Duration, none string) string {
	if d == 0 {
		return none
	}
	return d.String()
}

func stringOf(raw any) string {
	if raw == nil {
		return ""
	}
	return fmt.Sprint(raw)
}

func parseBool(raw any, key string) (bool, error) {
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

// AddSettingFlags defines the flags of the settings every command takes on
// the root, persistent, and a hidden copy of each client option's
// (BindOptions says why), and registers their completion.
func AddSettingFlags(root *cobra.Command, f *Factory) {
	addSettingFlags(root, f, func(s Setting) bool { return s.Scope == EveryCommand }, false)
	addSettingFlags(root, f, func(s Setting) bool { return s.Scope == ClientCommands }, true)
	Must(root.MarkPersistentFlagFilename("config", "yaml", "yml"))
}

// addSettingFlags defines the persistent flags of the settings keep
// selects on c.
func addSettingFlags(c *cobra.Command, f *Factory, keep func(Setting) bool, hidden bool) {
	pf := c.PersistentFlags()
	for _, s := range Settings() {
		if !keep(s) {
			continue
		}
		switch {
		case s.Value != nil:
			v := s.Value()
			Must(v.Set(s.Default))
			pf.VarP(v, s.Name, s.Shorthand, s.Usage)
		case s.Bool:
			pf.BoolP(s.Name, s.Shorthand, s.Default == "true", s.Usage)
		default:
			pf.StringP(s.Name, s.Shorthand, s.Default, s.Usage)
		}
		pf.Lookup(s.Name).Hidden = hidden
		if s.Complete != nil && !hidden {
			Must(c.RegisterFlagCompletionFunc(s.Name, s.Complete(f)))
		}
	}
}

// SettingsHelp lists every setting for the "configuration" help topic:
// its flag, environment variables and whether the config file has it.
func SettingsHelp() string {
	var b strings.Builder
	for _, s := range Settings() {
		flag := "--" + s.Name
		if s.Shorthand != "" {
			flag = "-" + s.Shorthand + ", " + flag
		}
		where := []string{}
		if env := s.EnvNames(); len(env) > 0 {
			where = append(where, strings.Join(env, ", "))
		}
		switch {
		case s.Contextual:
			where = append(where, "file and context key "+s.Name)
		case s.InFile():
			where = append(where, "file key "+s.Name)
		}
		if s.Scope == ClientCommands {
			where = append(where, "client commands")
		}
		if s.Secret {
			where = append(where, "secret")
		}
		fmt.Fprintf(&b, "  %-32s %s\n", flag, strings.Join(where, "; "))
	}
	return b.String()
}

// layeredValue is one setting's flag and environment as one viper flag
// value: set when the flag was given or an environment variable is, the
// flag winning. Viper's own BindEnv reads the process environment, but
// shakectl's comes through Factory.Getenv: the demo runs commands in the
// process with an environment of their own, and tests pass a map, and
// neither may change the process's environment. So the environment reaches
// viper beside the flag, above the file and the defaults, and viper orders
// the rest without any v.Set.
type layeredValue struct {
	name    string
	flag    *pflag.Flag
	env     string
	envName string // "" when no environment variable is set
}

func (l layeredValue) HasChanged() bool {
	return (l.flag != nil && l.flag.Changed) || l.envName != ""
}
func (l layeredValue) Name() string { return l.name }
func (l layeredValue) ValueString() string {
	if l.flag != nil && l.flag.Changed {
		return l.flag.Value.String()
	}
	if l.envName != "" {
		return l.env
	}
	if l.flag != nil {
		return l.flag.DefValue
	}
	return ""
}
func (l layeredValue) ValueType() string { return "string" }
