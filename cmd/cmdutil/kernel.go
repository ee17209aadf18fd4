package cmdutil

import (
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// KernelAnnotation marks every command the kernel built: VerbSession for
// a command that talks to the Shakenfist API (Verb), VerbLocal for one
// that does not (Local). The tree test in cmd/root fails on a runnable
// command without it.
const KernelAnnotation = "shakectl/kernel"

// The values of KernelAnnotation.
const (
	VerbSession = "session"
	VerbLocal   = "local"
)

// ArgsAnnotation is the usage builders.Args declared ("" for none, the
// kernel's default); cmd/root's tree test fails on a command without it.
const ArgsAnnotation = "shakectl/args"

// OptionsAnnotation lists, comma-separated, the client options (Settings
// of ClientCommands scope) a command takes. Verb sets every one; Local
// none, unless Takes adds some. BindOptions makes the flags from it.
const OptionsAnnotation = "shakectl/options"

// Verb makes c, the declaration (Use, Short, Long, Example, flags), a
// command that talks to the Shakenfist API: the kernel opens the session
// (configuration, client, context) before run and closes it after, and c
// takes every client option. c's RunE must be unset: the run is run. Its
// arguments are declared with builders.Args (none unless it does); a
// check that must refuse before anything is sent is its PreRunE.
func Verb(f *Factory, c *cobra.Command, run func(s *Session, args []string) error) *cobra.Command {
	return VerbWith(f, c, nil, run)
}

// VerbWith is Verb whose prepare may adjust the configuration before the
// client is built (instance create's --namespace also authenticates when
// no namespace is configured).
func VerbWith(f *Factory, c *cobra.Command, prepare func(*Config), run func(s *Session, args []string) error) *cobra.Command {
	declare(c, VerbSession)
	setAnnotation(c, OptionsAnnotation, everyClientOption())
	c.RunE = func(_ *cobra.Command, args []string) error {
		s, err := newSession(f, prepare)
		if err != nil {
			return err
		}
		defer s.close()
		return run(s, args)
	}
	return c
}

// Local makes c a command that does not talk to the API (version, sim,
// proxy, context …): run gets the command and its arguments, and the
// Factory it was built with. It takes no client option unless Takes says
// so.
func Local(c *cobra.Command, run func(c *cobra.Command, args []string) error) *cobra.Command {
	declare(c, VerbLocal)
	c.RunE = run
	return c
}

// Takes declares the client options a Local command takes (proxy and wrap
// take the API URL and the context, never credentials); each must name a
// client option.
func Takes(c *cobra.Command, options ...string) *cobra.Command {
	for _, o := range options {
		if !slices.Contains(clientNames(), o) {
			panic("cmdutil.Takes: " + o + " is not a client option")
		}
	}
	setAnnotation(c, OptionsAnnotation, strings.Join(options, ","))
	return c
}

func declare(c *cobra.Command, kind string) {
	if c.RunE != nil || c.Run != nil {
		panic("cmdutil: " + c.Name() + " declares its own Run; the kernel adds it")
	}
	setAnnotation(c, KernelAnnotation, kind)
	// No builders.Args: no arguments (the root's and groups' are commands).
	if _, ok := c.Annotations[ArgsAnnotation]; !ok && c.Args == nil && c.ValidArgsFunction == nil {
		c.Args, c.ValidArgsFunction = cobra.NoArgs, cobra.NoFileCompletions
		setAnnotation(c, ArgsAnnotation, "")
	}
}

func setAnnotation(c *cobra.Command, key, value string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[key] = value
}

// OptionsOf are the client options c takes: its own declaration, and for a
// command group those every command under it takes.
func OptionsOf(c *cobra.Command) []string {
	if v, ok := c.Annotations[OptionsAnnotation]; ok && v != "" {
		return strings.Split(v, ",")
	}
	return optionsTaken(c).names()
}

// takenBy lists the commands under root that take option name: the root's
// children, or a child's own commands when only some of them do.
func takenBy(root *cobra.Command, name string) []string {
	var names []string
	var walk func(c *cobra.Command, prefix string)
	walk = func(c *cobra.Command, prefix string) {
		for _, sub := range c.Commands() {
			switch {
			case slices.Contains(OptionsOf(sub), name):
				names = append(names, prefix+sub.Name())
			case sub.HasSubCommands():
				walk(sub, prefix+sub.Name()+" ")
			}
		}
	}
	walk(root, "")
	return names
}

// BindOptions gives each command the flags of the options it takes, where
// its --help shows them: a command group whose every command takes an
// option has it as a persistent flag ("Global Flags" of its commands), a
// command alone has it as its own. The root keeps a hidden copy of every
// client option's flag, so "shakectl --timeout 30s instance list" parses
// and a client flag given to a command that does not take it is refused
// (CheckClientFlags). The output filters (ObjectCommands) are bound alike
// where they apply, and -o where only some formats do (bindOutputs). Call
// it once the tree is built.
func BindOptions(root *cobra.Command, f *Factory) {
	filters := optionsWhere(func(d *Decl) bool { return d.Scope == ObjectCommands })
	var bind func(c *cobra.Command, have optionSet)
	bind = func(c *cobra.Command, have optionSet) {
		takes := optionsTaken(c)
		if printsObjects(c) {
			takes |= filters
		}
		if add := takes &^ have; add != 0 {
			addSettingFlags(c, f, add, false)
		}
		for _, sub := range c.Commands() {
			bind(sub, have|takes)
		}
	}
	for _, sub := range root.Commands() {
		bind(sub, 0)
	}
	bindOutputs(root)
}

// optionsTaken is OptionsOf as a set: for a command group, those of its
// commands (and groups) that every one takes.
func optionsTaken(c *cobra.Command) optionSet {
	if v, ok := c.Annotations[OptionsAnnotation]; ok {
		if v == everyClientOption() {
			return clientOptions()
		}
		names := strings.Split(v, ",")
		return optionsWhere(func(d *Decl) bool { return slices.Contains(names, d.Name) })
	}
	common, some := ^optionSet(0), false
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() || sub.HasSubCommands() {
			common, some = common&optionsTaken(sub), true
		}
	}
	if !some {
		return 0
	}
	return common
}

// clientOptions is the set of the options a Verb takes.
var clientOptions = sync.OnceValue(func() optionSet { return optionsWhere(func(d *Decl) bool { return d.Scope == ClientCommands }) })

// everyClientOption is OptionsAnnotation's value for a command that takes
// every client option: one string for every Verb of the tree.
var everyClientOption = sync.OnceValue(func() string { return strings.Join(clientNames(), ",") })

// ClientOptionNames are the client options, in the table's order, read once.
func ClientOptionNames() []string { return slices.Clone(clientNames()) }

// optionNames are the names of the options of one scope, in the table's
// order.
func optionNames(scope Scope) []string {
	return optionsWhere(func(d *Decl) bool { return d.Scope == scope }).names()
}
