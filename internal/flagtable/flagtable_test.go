package flagtable

import (
	"testing"

	"github.com/spf13/pflag"
)

// A field is named by the flag that sets it; a flag that names no field
// names nothing, and every flag is bound.
func TestNameAndBind(t *testing.T) {
	var rate float64
	table := Table[*float64, any]{
		{Field: "Rate", Name: "rate", Define: func(fl *pflag.FlagSet, n string, c *float64, _ any) { fl.Float64Var(c, n, 1, "") }},
		{Name: "quiet", Define: func(fl *pflag.FlagSet, n string, _ *float64, _ any) { fl.Bool(n, false, "") }},
	}
	for field, want := range map[string]string{"Rate": "--rate", "": "", "Quiet": ""} {
		if got := table.Name(field); got != want {
			t.Errorf("Name(%q) = %q, want %q", field, got, want)
		}
	}
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	table.Bind(fl, &rate, nil)
	if err := fl.Parse([]string{"--rate", "2.5", "--quiet"}); err != nil || rate != 2.5 {
		t.Errorf("parse: %v, rate %g", err, rate)
	}
}
