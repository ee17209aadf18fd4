package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	cliproxy "github.com/shakenfist/shakectl/cmd/proxy"
)

// flagValueAsArgument refuses a true/false flag given its value as a word
// of its own ("--quiet false"), for every command, before it runs. A flag
// whose value is optional (pflag's NoOptDefVal: every boolean flag) takes
// one only after "=", so pflag reads "false" as the first argument: `wrap
// --quiet false -- sf-client …` ran the command "false" (exit 1, nothing
// said), and a command taking NAMEs would look for one named "false"
// ("--gate off" once ran a command named "off"). Every other
// optional-value flag is kept out of the tree (TestNoOptionalValueFlags),
// so this is the one place the trap remains, and it is closed here. A
// word after a flag that takes a value, or after "--", is not looked at.
func flagValueAsArgument(f *cmdutil.Factory, root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil
	}
	target, rest, err := root.Find(args)
	if err != nil {
		return nil // Cobra reports it
	}
	err = boolValueAsArgument(target, rest)
	if err != nil {
		// Reported as every usage error is: under -o json as JSON, so
		// the command's flags are read as Cobra would have read them.
		f.Command = target
		_ = target.ParseFlags(rest)
	}
	return err
}

// boolValueAsArgument is flagValueAsArgument's scan of target's arguments.
func boolValueAsArgument(target *cobra.Command, rest []string) error {
	lookup := func(name string, short bool) *pflag.Flag {
		for _, fs := range []*pflag.FlagSet{target.Flags(), target.InheritedFlags()} {
			if short {
				if f := fs.ShorthandLookup(name); f != nil {
					return f
				}
			} else if f := fs.Lookup(name); f != nil {
				return f
			}
		}
		return nil
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			if target.Annotations[cliproxy.CommandArgsAnnotation] == "true" {
				return nil // wrap: its command starts here
			}
			continue
		}
		var f *pflag.Flag
		switch {
		case strings.Contains(a, "="):
			continue // the value is in the word
		case strings.HasPrefix(a, "--"):
			f = lookup(a[2:], false)
		case len(a) == 2:
			f = lookup(a[1:], true)
		default:
			continue // -abc: shorthands together, or -n5
		}
		switch {
		case f == nil:
		case f.NoOptDefVal == "":
			i++ // its value is the next word
		case i+1 < len(rest) && isBoolFlag(f) && isBoolWord(rest[i+1]):
			return &cmdutil.UsageError{Command: target.CommandPath(),
				Msg: fmt.Sprintf("%q after %s would be read as an argument, not as the flag's value: write %s=%s (a true/false flag takes a value only after \"=\")", rest[i+1], a, a, strings.ToLower(rest[i+1]))}
		}
	}
	return nil
}

// isBoolFlag says whether f is a true/false flag.
func isBoolFlag(f *pflag.Flag) bool {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return true
	}
	return f.Value.Type() == "bool"
}

func isBoolWord(w string) bool {
	return strings.EqualFold(w, "true") || strings.EqualFold(w, "false")
}
