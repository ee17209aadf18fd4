package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// HandlesSignalsAnnotation marks a command that subscribes to SIGINT and
// SIGTERM itself (wrap), so the run does not cancel its context on them.
const HandlesSignalsAnnotation = "shakectl/handles-signals"

// CheckClientFlags refuses a client flag given to a command that does not
// take that option (OptionsOf), naming what does: the message comes from
// the commands' declarations. A command's own flag of the same name
// (parking-probe's per-request --timeout) is its own, and allowed.
func CheckClientFlags(c *cobra.Command) error {
	root := c.Root()
	takes := OptionsOf(c)
	for _, name := range clientNames() {
		if slices.Contains(takes, name) {
			continue
		}
		global := root.PersistentFlags().Lookup(name)
		if global == nil || !global.Changed || c.Flags().Lookup(name) != global {
			continue
		}
		why := "it configures the Shakenfist API client (" + strings.Join(takenBy(root, name), ", ") + ")"
		if len(takes) > 0 {
			why = "of the client's settings it takes only --" + strings.Join(takes, ", --")
		}
		return &UsageError{Msg: "--" + name + " does not apply to " + c.CommandPath() + ": " + why, Command: c.CommandPath()}
	}
	return nil
}

// RunFlags are the flags the configuration reads for the command that
// runs: the persistent flags it inherits (the root's, and its group's
// client flags) and its own persistent ones. A command's local flag of the
// same name (parking-probe's per-request --timeout, instance create's
// --namespace) is not among them, so it never sets a global value.
func RunFlags(root, c *cobra.Command) *pflag.FlagSet {
	if c == nil {
		c = root
	}
	fs := pflag.NewFlagSet(c.CommandPath(), pflag.ContinueOnError)
	fs.AddFlagSet(c.PersistentFlags())
	fs.AddFlagSet(c.InheritedFlags())
	if c == root {
		fs.AddFlagSet(root.PersistentFlags())
	}
	return fs
}

// OutputsAnnotation lists, on a command, the -o formats it accepts when
// not every one makes sense for it.
const OutputsAnnotation = "shakectl/outputs"

// NoFiltersAnnotation marks a command whose output is not the API's
// objects (parking-probe's report, the simulators' banners, the demo's tour,
// completion scripts), so --jq and --no-headers would mean nothing there.
const NoFiltersAnnotation = "shakectl/no-filters"

// printsObjects: neither c, a group above it nor a command under it is
// marked NoFiltersAnnotation, so they take the output filters.
func printsObjects(c *cobra.Command) bool {
	for p := c; p != nil; p = p.Parent() {
		if _, ok := p.Annotations[NoFiltersAnnotation]; ok {
			return false
		}
	}
	return !slices.ContainsFunc(c.Commands(), func(sub *cobra.Command) bool { return !printsObjects(sub) })
}

// CheckOutputFilters refuses --jq or --no-headers where the output is not
// the API's objects: the flag given is then the root's hidden copy.
func CheckOutputFilters(c *cobra.Command) error {
	root := c.Root()
	for _, name := range optionNames(ObjectCommands) {
		global := root.PersistentFlags().Lookup(name)
		if global == nil || !global.Changed || c.Flags().Lookup(name) != global {
			continue
		}
		return &UsageError{Msg: "--" + name + " does not apply to " + c.CommandPath() + ": it filters the API's objects that client commands print", Command: c.CommandPath()}
	}
	return nil
}

// bindOutputs gives each command that accepts only some -o formats
// (OutputsAnnotation; its commands inherit both) its own -o, whose usage
// and completion name those, so its --help offers nothing
// CheckOutputApplies refuses.
func bindOutputs(c *cobra.Command) {
	if allowed, ok := c.Annotations[OutputsAnnotation]; ok {
		formats, settings := strings.Split(allowed, ","), table()
		out := *settings[slices.IndexFunc(settings, func(s Setting) bool { return s.Declared().Name == "output" })].(*Option[Output])
		out.Usage = "output format: " + strings.Join(formats, ", ")
		if fl := out.addFlag(c.PersistentFlags()); !slices.Contains(formats, fl.DefValue) {
			fl.DefValue = "" // api's -o is json or yaml: "table" is no default there
		}
		Must(c.RegisterFlagCompletionFunc("output", FixedWithDesc(formats, outputHelp)))
	}
	for _, sub := range c.Commands() {
		bindOutputs(sub)
	}
}

// CheckOutputApplies refuses an -o given on the command line that the
// command cannot honour (-o simple on parking-probe, -o table on api),
// instead of quietly printing something else.
func CheckOutputApplies(c *cobra.Command) error {
	fl := c.Flag("output")
	if fl == nil || !fl.Changed {
		return nil
	}
	for p := c; p != nil; p = p.Parent() {
		allowed, ok := p.Annotations[OutputsAnnotation]
		if !ok {
			continue
		}
		for _, a := range strings.Split(allowed, ",") {
			if a == fl.Value.String() {
				return nil
			}
		}
		return &UsageError{Msg: "-o " + fl.Value.String() + " does not apply to " + c.CommandPath() + ": want one of " + allowed, Command: c.CommandPath()}
	}
	return nil
}
