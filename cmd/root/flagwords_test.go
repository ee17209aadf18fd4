package root_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

func isBoolFlag(f *pflag.Flag) bool {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return true
	}
	return f.Value.Type() == "bool"
}

// Issue 40, item 9: a flag whose value is optional (pflag's NoOptDefVal)
// takes one only after "=": "wrap --gate off -- true" ran a command named
// "off", and "proxy --gate off" said `unknown command "off"`. No flag of
// the tree may be one, but a true/false flag (whose separate "true" or
// "false" the root refuses: TestTrueFalseAfterAFlagIsRefused).
func TestNoOptionalValueFlags(t *testing.T) {
	n := 0
	walk(newTree(t), func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if f.NoOptDefVal == "" {
					return
				}
				n++
				if !isBoolFlag(f) {
					t.Errorf("%s --%s takes an optional value (NoOptDefVal %q): `--%s VALUE` would leave VALUE as an argument; make it take a value", c.CommandPath(), f.Name, f.NoOptDefVal, f.Name)
				}
			})
		}
	})
	if n < 20 {
		t.Errorf("only %d true/false flags in the tree: the walk missed them", n)
	}
	t.Logf("%d true/false flags", n)
}

// Every command that has a true/false flag refuses "--flag false" (and
// "true") as a usage error naming the spelling that works, before it
// runs: pflag would read the word as an argument (wrap ran the command
// "false"; a command taking NAMEs would look for one named "false").
func TestTrueFalseAfterAFlagIsRefused(t *testing.T) {
	checked := 0
	walk(newTree(t), func(c *cobra.Command) {
		if !c.Runnable() || c.Hidden {
			return
		}
		var flag *pflag.Flag
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if flag == nil && f.Name != "help" && isBoolFlag(f) {
					flag = f
				}
			})
		}
		if flag == nil {
			return
		}
		checked++
		word := []string{"false", "TRUE"}[checked%2]
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "shakectl")), "--"+flag.Name, word)
		if c.Annotations["shakectl/command-args"] == "true" {
			args = append(args, "--", "true")
		}
		ios, _, out, errOut := output.Test()
		code := root.Run(&cmdutil.Factory{IOStreams: ios, HomeDir: t.TempDir()}, args)
		want := fmt.Sprintf("error: %q after --%s would be read as an argument, not as the flag's value: write --%s=%s (a true/false flag takes a value only after \"=\")\nhint: see '%s --help'\n",
			word, flag.Name, flag.Name, strings.ToLower(word), c.CommandPath())
		if code != cmdutil.ExitUsage || errOut.String() != want || out.String() != "" {
			t.Errorf("shakectl %s: exit %d\nstdout %q\nstderr %q\nwant   %q", strings.Join(args, " "), code, out, errOut, want)
		}
	})
	if checked < 50 {
		t.Errorf("only %d commands checked", checked)
	}
	t.Logf("%d commands checked", checked)
}

// What is not a value split off a true/false flag passes: the value of a
// flag that takes one, a flag's value after "=", a word after "--", and
// wrap's command's own arguments.
func TestTrueFalseWordsThatAreArguments(t *testing.T) {
	for _, args := range [][]string{
		{"config", "view", "--config", "true"},
		{"config", "view", "--quiet=false"},
		{"wrap", "--", "true", "--quiet", "false"},
		{"wrap", "--quiet=true", "false", "--debug", "true"},
	} {
		ios, _, _, errOut := output.Test()
		root.Run(&cmdutil.Factory{IOStreams: ios, HomeDir: t.TempDir()}, args)
		if strings.Contains(errOut.String(), "would be read as an argument") {
			t.Errorf("shakectl %s: %s", strings.Join(args, " "), errOut)
		}
	}
}
