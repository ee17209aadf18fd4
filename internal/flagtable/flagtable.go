// Package flagtable is a command's flags as one table: each flag's name,
// the library option field it sets, and how it is defined, so the flags
// are declared once and a library's {Field} placeholders
// (internal/fielderr) are rendered as the flags the user typed.
package flagtable

import "github.com/spf13/pflag"

// Flag is one of a command's flags: its name, the library field it sets
// (the name the library's errors give the value: {Requests},
// {Checks.Budget}), and define, which defines the flag on a flag set bound
// into the library's options c (straight into the field, so no copy of the
// options stands between the flags and the library) or into the command's
// own options o (what the command parses or keeps itself).
type Flag[C, O any] struct {
	Field  string // "" when the library's errors never name it
	Name   string
	Define func(fl *pflag.FlagSet, name string, c C, o O)
}

// Table is a command's flags, the one place to add a flag when the
// library's options grow a field: one entry, its Define binding the field.
type Table[C, O any] []Flag[C, O]

// Bind defines every flag of the table on fl.
func (t Table[C, O]) Bind(fl *pflag.FlagSet, c C, o O) {
	for _, f := range t {
		f.Define(fl, f.Name, c, o)
	}
}

// Name is the flag, --name, for a field the library's errors name, "" for
// a field no flag sets: Render's name.
func (t Table[C, O]) Name(field string) string {
	for _, f := range t {
		if f.Field != "" && f.Field == field {
			return "--" + f.Name
		}
	}
	return ""
}
