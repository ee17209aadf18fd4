package cmdutil

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/internal/numflag"
	"github.com/shakenfist/shakectl/internal/redact"
	"github.com/shakenfist/shakectl/output"
)

// Scope says which commands a setting applies to.
type Scope int

const (
	// EveryCommand settings are the root's: output, colour, the config
	// file.
	EveryCommand Scope = iota
	// ClientCommands settings configure the Shakenfist API client: only
	// the commands that declare them take their flags (CheckClientFlags).
	ClientCommands
	// ObjectCommands settings shape how the API's objects print (--jq,
	// --no-headers): every command takes their flags but those marked
	// NoFiltersAnnotation, whose output is something else
	// (CheckOutputFilters).
	ObjectCommands
)

// Decl is what a setting declares whatever its type: its flag, where else
// it may be set, which commands take it and whether it is a secret.
type Decl struct {
	// Name is the flag's name and the config file's key.
	Name      string
	Shorthand string
	Usage     string
	// Env are the environment variables that set it, the first set one
	// winning; nil means SHAKECTL_<NAME>.
	Env   []string
	Scope Scope
	// Where the value may come from besides the flag: FlagOnly settings
	// come from the flag alone; Selector settings (--config, --context)
	// choose a file or a part of it, so they have no key in the file and
	// no Field; a Contextual setting may also be set by the selected
	// context.
	FlagOnly   bool
	Selector   bool
	Contextual bool
	// Secret values are never shown: config view says only whether one is
	// set ("[redacted]").
	Secret bool
	// Complete completes the flag's value; nil leaves the shell's file
	// completion.
	Complete func(f *Factory) cobra.CompletionFunc
}

// EnvNames are the environment variables that set the setting, first
// winning.
func (d *Decl) EnvNames() []string {
	switch {
	case d.FlagOnly:
		return nil
	case d.Env != nil:
		return d.Env
	}
	return []string{"SHAKECTL_" + strings.ToUpper(strings.ReplaceAll(d.Name, "-", "_"))}
}

// InFile says whether the config file (and so config view) has the key.
func (d *Decl) InFile() bool { return !d.FlagOnly && !d.Selector }

// Setting is one row of the table: an Option of any type. The flags,
// LoadConfig, config view, the help topic and CheckClientFlags see every
// option through it.
type Setting interface {
	// Declared is the option's declaration.
	Declared() *Decl
	// Show is the value config view prints for cfg.
	Show(cfg *Config) string
	// defaultText is the default as text: the flag's and the lowest layer.
	defaultText() string
	// addFlag defines the option's flag in fs.
	addFlag(fs *pflag.FlagSet) *pflag.Flag
	// apply parses the resolved value (as viper has it: a string, or a
	// bool or number from the file) into cfg, or says why it is invalid.
	apply(cfg *Config, raw any) error
}

// Option is one setting, typed (hcloud's Option[T]): its declaration, its
// default, the one parser of its text (the flag's, an environment
// variable's, the config file's), how it is written and shown, and where
// its value lives in Config.
type Option[T any] struct {
	Decl
	Default T
	// Parse reads a value from text; a bool or a number from the config
	// file is read as its text. Its error is a *UsageError, to which
	// LoadConfig adds where the value came from.
	Parse func(string) (T, error)
	// Text writes a value as Parse reads it: the flag's default and, for
	// ParsesFlag, its value; nil is fmt.Sprint.
	Text func(T) string
	// View is what config view shows of a value; nil is Text. A Secret
	// shows only whether it is set.
	View func(T) string
	// Field is where the value lives in Config; zero for a selector,
	// which LoadConfig reads itself.
	Field Field[T]
	// Range bounds a numeric option, as numflag.Var's does a command's
	// numeric flag, and every numeric option has one (addFlag panics
	// without): the flag, the environment and the file are each refused
	// outside it, naming the range. Its flag is a RangedValue of the
	// range's type, which checks it as the command line is parsed.
	Range numflag.Bounds[T]
	// ParsesFlag makes the flag parse its value as it is given (-o,
	// --async): a bad value is the flag parser's "invalid argument"
	// error, and the flag holds the typed value (OutputOf). Otherwise the
	// flag holds the text, parsed with the other layers, and an error
	// names where the value came from. A bool's flag is pflag's own
	// (--quiet, --quiet=false, strictly true or false); the environment
	// and the file read yes/no/on/off too.
	ParsesFlag bool
}

// Field is where an option's value lives in Config.
type Field[T any] struct {
	Get func(*Config) T
	Set func(*Config, T)
}

// At is the Field of a Config field of the option's own type.
func At[T any](p func(*Config) *T) Field[T] {
	return Field[T]{Get: func(c *Config) T { return *p(c) }, Set: func(c *Config, v T) { *p(c) = v }}
}

// Declared is the option's declaration.
func (o *Option[T]) Declared() *Decl { return &o.Decl }

func (o *Option[T]) text(v T) string {
	if o.Text != nil {
		return o.Text(v)
	}
	return fmt.Sprint(v)
}

func (o *Option[T]) defaultText() string { return o.text(o.Default) }

// Show is the value config view prints: a secret only as "[redacted]"
// when set.
func (o *Option[T]) Show(cfg *Config) string {
	if o.Field.Get == nil {
		return ""
	}
	v := o.Field.Get(cfg)
	switch {
	case o.Secret && o.text(v) != "":
		return redact.Marker
	case o.Secret:
		return ""
	case o.View != nil:
		return o.View(v)
	}
	return o.text(v)
}

func (o *Option[T]) apply(cfg *Config, raw any) error {
	if o.Field.Set == nil {
		return nil
	}
	text := ""
	if raw != nil {
		text = fmt.Sprint(raw)
	}
	v, err := o.parse(text)
	o.Field.Set(cfg, v)
	return err
}

// parse is Parse, and for a numeric option its Range: a value outside it
// is refused as one Parse cannot read, naming the range.
func (o *Option[T]) parse(text string) (T, error) {
	v, err := o.Parse(text)
	if o.Range != nil && (err != nil || !o.Range.Contains(v)) {
		return v, UsageErrorf("invalid %s %q: %s", o.Name, strings.TrimSpace(text), o.Range.Refusal(text))
	}
	return v, err
}

func (o *Option[T]) addFlag(fs *pflag.FlagSet) *pflag.Flag {
	switch def := any(o.Default).(type) {
	case bool:
		fs.BoolP(o.Name, o.Shorthand, def, o.Usage)
	case int, int64, uint64, float64, time.Duration:
		if o.Range == nil {
			panic("setting " + o.Name + " is a number declared without its Range")
		}
		// The flag holds the text, as a setting's does, once accepted.
		check := func(s string) error { _, err := o.parse(s); return err }
		fs.VarP(numflag.Text(o.defaultText(), o.Range, check), o.Name, o.Shorthand, numflag.WithRange(o.Usage, o.Range.String()))
	default:
		if o.ParsesFlag {
			fs.VarP(&flagValue[T]{o: o, v: o.Default}, o.Name, o.Shorthand, o.Usage)
		} else {
			fs.StringP(o.Name, o.Shorthand, o.defaultText(), o.Usage)
		}
	}
	return fs.Lookup(o.Name)
}

// flagValue is a ParsesFlag option's flag (pflag.Value): it holds the
// parsed value; help shows its type as "string", as it always has.
type flagValue[T any] struct {
	o *Option[T]
	v T
}

func (f *flagValue[T]) String() string { return f.o.text(f.v) }
func (f *flagValue[T]) Set(s string) (err error) {
	f.v, err = f.o.Parse(s)
	return err
}
func (*flagValue[T]) Type() string { return "string" }

// OutputOf is the format a parsed -o flag holds; ok is false when fl is
// not one.
func OutputOf(fl *pflag.Flag) (f output.Format, ok bool) {
	o, ok := fl.Value.(*flagValue[Output])
	if !ok {
		return "", false
	}
	return o.v.Format, true
}
