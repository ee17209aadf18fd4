package cmdutil

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// checkOption checks one option against the text s: Parse never panics,
// refuses only with a *UsageError, and what it reads a ParsesFlag flag
// writes back (Text) reads the same again, since the flag's text is what
// reaches the other layers.
func checkOption[T any](t *testing.T, o *Option[T], s string) {
	if o.Parse == nil {
		return
	}
	v, err := o.Parse(s)
	if err != nil {
		var u *UsageError
		if !errors.As(err, &u) {
			t.Fatalf("--%s %q: error %T %v is not a usage error", o.Name, s, err, err)
		}
		return
	}
	if !o.ParsesFlag {
		return
	}
	again, err := o.Parse(o.text(v))
	if err != nil || !reflect.DeepEqual(again, v) {
		t.Fatalf("--%s %q: read %#v, written %q, read again %#v, %v", o.Name, s, v, o.text(v), again, err)
	}
}

func checkEveryOption(t *testing.T, s string) {
	for _, setting := range Settings() {
		switch o := setting.(type) {
		case *Option[string]:
			checkOption(t, o, s)
		case *Option[bool]:
			checkOption(t, o, s)
		case *Option[time.Duration]:
			checkOption(t, o, s)
		case *Option[Output]:
			checkOption(t, o, s)
		case *Option[AsyncMode]:
			checkOption(t, o, s)
		default:
			t.Fatalf("--%s is an option of a type this test does not know: %T", setting.Declared().Name, setting)
		}
	}
}

// TestEveryDefaultReadsAsItself: the default, written as text (the flag's
// default, the lowest layer viper has), parses back to the default.
func TestEveryDefaultReadsAsItself(t *testing.T) {
	for _, setting := range Settings() {
		switch o := setting.(type) {
		case *Option[string]:
			defaultReadsAsItself(t, o)
		case *Option[bool]:
			defaultReadsAsItself(t, o)
		case *Option[time.Duration]:
			defaultReadsAsItself(t, o)
		case *Option[Output]:
			defaultReadsAsItself(t, o)
		case *Option[AsyncMode]:
			defaultReadsAsItself(t, o)
		}
	}
	checkEveryOption(t, "")
}

func defaultReadsAsItself[T any](t *testing.T, o *Option[T]) {
	if o.Parse == nil {
		if o.Field.Set != nil || !o.Selector {
			t.Errorf("--%s has a Config field but no parser", o.Name)
		}
		return
	}
	v, err := o.Parse(o.defaultText())
	if err != nil || !reflect.DeepEqual(v, o.Default) {
		t.Errorf("--%s: default %#v written %q reads as %#v, %v", o.Name, o.Default, o.defaultText(), v, err)
	}
}

// FuzzOptionParse runs every option's parser on the same text.
func FuzzOptionParse(f *testing.F) {
	for _, s := range []string{"", "json", "YAML", "columns=NAME, state", "columns=", "pause", "BLOCK", "true", "yes", "off", "2",
		"90", "1m30s", "-1", "1e300", "0.5", "http://sf/api/", " x ", "columns=a,,b", "nan"} {
		f.Add(s)
	}
	f.Fuzz(checkEveryOption)
}

// The options' sets (optionSet) hold a setting as bit i of a uint64: a
// 65th setting would be left out of every set, its flag bound nowhere.
func TestSettingsFitAnOptionSet(t *testing.T) {
	if n := len(table()); n > 64 {
		t.Fatalf("%d settings: an optionSet holds 64", n)
	}
	all := optionsWhere(func(*Decl) bool { return true })
	if got := len(all.names()); got != len(table()) {
		t.Errorf("the set of every setting names %d of the %d", got, len(table()))
	}
}
