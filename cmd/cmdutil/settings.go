package cmdutil

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/retry"
)

// Every global setting is declared once, here, as a typed Option: its
// flag, the environment variables and config-file key that also set it,
// its default, its parser, where its value lives in Config, its help and
// completion, whether it is a secret, and which commands take it. The
// flags (AddSettingFlags), the resolution (LoadConfig), `config view`, the
// "configuration" help topic's table (SettingsMarkdown) and the refusal of client flags
// elsewhere (CheckClientFlags) are all made from this table, so adding a
// setting is one entry here plus the code that uses its Config field.

// Settings is the table in config view's and the help topic's order.
func Settings() []Setting { return slices.Clone(table()) }

// table and the client options' names are built once per process (rebuilt
// for each command, they were 30 % of `shakectl version`); immutable (flags
// hold values, bindOutputs copies -o).
var table = sync.OnceValue(buildSettings)
var clientNames = sync.OnceValue(func() []string { return optionNames(ClientCommands) })

func buildSettings() []Setting {
	return []Setting{
		&Option[string]{Decl: Decl{Name: "api-url", Scope: ClientCommands, Contextual: true,
			Usage: "Shakenfist API URL: http://HOST:13000, or where your load balancer serves it (2024's Apache: http://HOST/api) (client commands)",
			Env:   []string{"SHAKECTL_API_URL", "SHAKENFIST_API_URL"}, Complete: noFiles},
			Parse: func(s string) (string, error) { return strings.TrimRight(strings.TrimSpace(s), "/"), nil },
			Field: At(func(c *Config) *string { return &c.APIURL }),
			// A password in the URL is a secret too.
			View: redact.URL},
		&Option[string]{Decl: Decl{Name: "namespace", Scope: ClientCommands, Contextual: true,
			Usage: "namespace to authenticate to (client commands)",
			Env:   []string{"SHAKECTL_NAMESPACE", "SHAKENFIST_NAMESPACE"},
			Complete: func(f *Factory) cobra.CompletionFunc {
				if f.CompleteNamespaces == nil {
					return cobra.NoFileCompletions
				}
				return f.CompleteNamespaces(f)
			}},
			Parse: asText, Field: At(func(c *Config) *string { return &c.Namespace })},
		&Option[string]{Decl: Decl{Name: "key", Scope: ClientCommands, Contextual: true, Secret: true,
			Usage: "API key (prefer SHAKENFIST_KEY or a config file: argv is visible to other users)",
			Env:   []string{"SHAKECTL_KEY", "SHAKENFIST_KEY"}, Complete: noFiles},
			Parse: asText, Field: At(func(c *Config) *string { return &c.Key })},
		&Option[Output]{Decl: Decl{Name: "output", Shorthand: "o", Scope: EveryCommand,
			Usage:    "output format: table, simple, json, yaml, or columns=NAME,STATE,… (a table of those columns)",
			Complete: func(*Factory) cobra.CompletionFunc { return fixedValues(output.Formats, outputHelp) }},
			Default: Output{Format: output.FormatTable}, Parse: ParseOutput, Text: Output.String, ParsesFlag: true,
			Field: Field[Output]{
				Get: func(c *Config) Output { return Output{Format: c.Output, Columns: c.Columns} },
				Set: func(c *Config, o Output) { c.Output, c.Columns = o.Format, o.Columns }}},
		boolOption("retry-transient-capacity", ClientCommands, "retry a call refused with a transient 507 as the server's Retry-After says (at most 5 attempts, within the deadline), if a replay cannot double it: "+retry.ReplayableText, func(c *Config) *bool { return &c.RetryTransientCapacity }),
		&Option[time.Duration]{Decl: Decl{Name: "timeout", Scope: ClientCommands, Complete: noFiles,
			Usage: "deadline for the whole command, e.g. 90s (default: the --async budget)"},
			Parse: parseTimeout, Text: durationText, Range: numflag.Between(0, MaxTimeout), Field: At(func(c *Config) *time.Duration { return &c.Timeout }),
			View: func(d time.Duration) string { return durationOr(d, "none (the --async budget)") }},
		&Option[time.Duration]{Decl: Decl{Name: "request-timeout", Scope: ClientCommands, Complete: noFiles,
			Usage: "bound on each request, its answer included, e.g. 10s (default 30s); --timeout bounds the whole command"},
			Parse: parseTimeout, Text: durationText, Range: numflag.Between(0, MaxTimeout), Field: At(func(c *Config) *time.Duration { return &c.RequestTimeout }),
			View: func(d time.Duration) string { return durationOr(d, "30s") }},
		&Option[AsyncMode]{Decl: Decl{Name: "async", Scope: ClientCommands,
			Usage:    "how long to wait for slow operations: continue (0), pause (60s) or block (1h)",
			Env:      []string{"SHAKECTL_ASYNC", "SHAKENFIST_ASYNC"},
			Complete: func(*Factory) cobra.CompletionFunc { return fixedValues(AsyncModes, asyncHelp) }},
			Default: AsyncPause, Parse: ParseAsyncMode, ParsesFlag: true, Field: At(func(c *Config) *AsyncMode { return &c.Async })},
		boolOption("no-color", EveryCommand, "never colour the output", func(c *Config) *bool { return &c.NoColor }),
		boolOption("quiet", EveryCommand, "print no progress or retry lines on stderr", func(c *Config) *bool { return &c.Quiet }),
		boolOption("debug", ClientCommands, "log every API request and answer on stderr: URL, headers, bodies up to 4 KiB, timing (secrets redacted)",
			func(c *Config) *bool { return &c.Debug }),
		boolOption("insecure", ClientCommands, "do not verify the API server's TLS certificate (dangerous)", func(c *Config) *bool { return &c.Insecure }),
		boolOption("no-headers", ObjectCommands, "print tables without their header line", func(c *Config) *bool { return &c.NoHeaders }),
		&Option[string]{Decl: Decl{Name: "jq", Scope: ObjectCommands, FlagOnly: true, Complete: noFiles,
			Usage: "filter JSON output with a jq expression (implies -o json), e.g. '.[].name'"},
			Parse: asText, Field: At(func(c *Config) *string { return &c.JQ })},
		&Option[string]{Decl: Decl{Name: "context", Scope: ClientCommands, Selector: true,
			Usage: "use this context from the config file (default: SHAKECTL_CONTEXT, else current-context)"}},
		&Option[string]{Decl: Decl{Name: "config", Scope: EveryCommand, Selector: true,
			Usage: "config file (default $XDG_CONFIG_HOME/shakectl/config.yaml)"}},
	}
}

// MaxTimeout bounds --timeout and --request-timeout: a week, far above
// --async block's hour, so that a typo (--timeout 9999999h) is refused
// rather than read as never.
const MaxTimeout = 7 * 24 * time.Hour

// FileKeys are the keys a config file may hold, in the table's order.
func FileKeys() []string { return optionsWhere((*Decl).InFile).names() }

func boolOption(name string, scope Scope, usage string, field func(*Config) *bool) *Option[bool] {
	return &Option[bool]{Decl: Decl{Name: name, Scope: scope, Usage: usage},
		Parse: func(s string) (bool, error) { return parseBool(s, name) }, Field: At(field)}
}

func asText(s string) (string, error) { return s, nil }

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

// durationText writes a duration as parseTimeout reads it, "" for none.
func durationText(d time.Duration) string { return durationOr(d, "") }

// parseBool reads a boolean from the environment or the file, where yes,
// no, on and off are common.
func parseBool(text, key string) (bool, error) {
	s := strings.ToLower(strings.TrimSpace(text))
	switch s {
	case "1", "t", "true", "yes", "on":
		return true, nil
	case "", "0", "f", "false", "no", "off":
		return false, nil
	}
	return false, UsageErrorf("invalid value %q for %s: want true or false", s, key)
}

// AddSettingFlags defines the flags of the settings every command takes on
// the root, persistent, and a hidden copy of each other option's
// (BindOptions says why), and registers their completion.
func AddSettingFlags(root *cobra.Command, f *Factory) {
	every := optionsWhere(func(d *Decl) bool { return d.Scope == EveryCommand })
	addSettingFlags(root, f, every, false)
	addSettingFlags(root, f, ^every, true)
	Must(root.MarkPersistentFlagFilename("config", "yaml", "yml"))
}

// addSettingFlags defines the persistent flags of the settings in set on
// c.
func addSettingFlags(c *cobra.Command, f *Factory, set optionSet, hidden bool) {
	pf := c.PersistentFlags()
	for i, s := range table() {
		if !set.has(i) {
			continue
		}
		d := s.Declared()
		s.addFlag(pf).Hidden = hidden
		if d.Complete != nil && !hidden {
			Must(c.RegisterFlagCompletionFunc(d.Name, d.Complete(f)))
		}
	}
}

// optionSet is a set of the table's settings, bit i for table()[i] (a
// test keeps the table within its 64 bits): the walk that binds the
// client flags compares the options of every command of the tree with
// those above it, without a list of names each.
type optionSet uint64

func (s optionSet) has(i int) bool { return s&(1<<i) != 0 }

// optionsWhere is the set of the settings keep selects.
func optionsWhere(keep func(*Decl) bool) optionSet {
	var set optionSet
	for i, s := range table() {
		if keep(s.Declared()) {
			set |= 1 << i
		}
	}
	return set
}

// names are the names of the settings in s, in the table's order.
func (s optionSet) names() []string {
	var names []string
	for i, t := range table() {
		if s.has(i) {
			names = append(names, t.Declared().Name)
		}
	}
	return names
}

// SettingsMarkdown is the table of every setting in the "configuration"
// help topic (docs/configuration.md, where go generate ./docs writes it):
// its flag, environment variables, whether the config file or a context
// may set it, and which commands take it.
func SettingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| flag | environment | config file | commands |\n|---|---|---|---|\n")
	for _, setting := range table() {
		s := setting.Declared()
		flag := "`--" + s.Name + "`"
		if s.Shorthand != "" {
			flag = "`-" + s.Shorthand + "`, " + flag
		}
		var env []string
		for _, e := range s.EnvNames() {
			env = append(env, "`"+e+"`")
		}
		if env == nil {
			env = []string{"—"}
		}
		file := "—"
		switch {
		case s.Contextual:
			file = "`" + s.Name + "` (also in a context)"
		case s.InFile():
			file = "`" + s.Name + "`"
		}
		scope := "every command"
		switch s.Scope {
		case ClientCommands:
			scope = "client commands"
		case ObjectCommands:
			scope = "commands that print the API's objects"
		}
		if s.Secret {
			scope += "; secret"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", flag, strings.Join(env, ", "), file, scope)
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
