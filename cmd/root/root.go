package root

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/admin"
	"github.com/shakenfist/shakectl/cmd/api"
	"github.com/shakenfist/shakectl/cmd/artifact"
	"github.com/shakenfist/shakectl/cmd/backup"
	"github.com/shakenfist/shakectl/cmd/blob"
	"github.com/shakenfist/shakectl/cmd/clusteroperation"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/completion"
	cliconfig "github.com/shakenfist/shakectl/cmd/config"
	clicontext "github.com/shakenfist/shakectl/cmd/context"
	"github.com/shakenfist/shakectl/cmd/demo"
	"github.com/shakenfist/shakectl/cmd/iface"
	"github.com/shakenfist/shakectl/cmd/instance"
	"github.com/shakenfist/shakectl/cmd/label"
	"github.com/shakenfist/shakectl/cmd/namespace"
	"github.com/shakenfist/shakectl/cmd/network"
	"github.com/shakenfist/shakectl/cmd/node"
	"github.com/shakenfist/shakectl/cmd/parkingprobe"
	cliproxy "github.com/shakenfist/shakectl/cmd/proxy"
	"github.com/shakenfist/shakectl/cmd/sim"
	"github.com/shakenfist/shakectl/cmd/version"
)

// NewCmdRoot builds the whole command tree for one run.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "shakectl <command> <subcommand> [flags]",
		Short: "Shakenfist cloud client and atenet request-parking probe",
		Long: `shakectl talks to a Shakenfist cloud (instances, networks, nodes,
namespaces, raw API calls), gives other clients its transient-capacity retry
(wrap, proxy), load-tests the atenet router's request parking
(parking-probe), and runs local simulators of both servers (sim, demo).

Settings come from flags, then the environment, then
$XDG_CONFIG_HOME/shakectl/config.yaml, then sf-client's files; see
"shakectl help configuration" and "shakectl config view".

It speaks both Shakenfist server generations, the 2024 release
(develop da448b1a, v0.8) and today's 2026 develop, reading what the server
says it can do; "shakectl help generations" says what differs.

Try "shakectl demo" for a tour against the embedded simulators, and
"shakectl help exit-codes" for what the exit status means.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Completion is our own command (shakectl completion SHELL), with
		// help for each shell; Cobra's default one is switched off.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		// Runnable, so that "shakectl nosuch" reaches this RunE: a typed
		// usage error rather than Cobra's legacy argument check.
		Args:        cobra.ArbitraryArgs,
		Version:     f.Build.Version,
		Annotations: map[string]string{argsAreCommandsAnnotation: "true"},
	}
	cmdutil.Local(root, helpOrUnknown)
	root.SetVersionTemplate(version.Text(f.Build))
	root.SetOut(f.IOStreams.Out)
	// Cobra says nothing on stderr with SilenceErrors and SilenceUsage;
	// anything it might is a note, like every other line there.
	root.SetErr(f.IOStreams.Notifier().Lines("message"))
	root.SetIn(f.IOStreams.In)
	// The command that runs decides which flags the configuration reads:
	// the client's flags exist only on the client command groups.
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		f.Command = c
		if err := validateFlagRules(c); err != nil {
			return err
		}
		if err := cmdutil.CheckClientFlags(c); err != nil {
			return err
		}
		if err := cmdutil.CheckOutputFilters(c); err != nil {
			return err
		}
		return cmdutil.CheckOutputApplies(c)
	}

	// Every setting's flag, from the one table (cmdutil.Settings); the
	// namespaces --namespace completes are the API's (cmd/complete).
	if f.CompleteNamespaces == nil {
		f.CompleteNamespaces = complete.NamespaceNames
	}
	cmdutil.AddSettingFlags(root, f)

	// Each tree resolves its own configuration, from its own flags.
	f.Root, f.Config = root, nil
	f.Wire()

	// Flag errors are usage errors typed where Cobra reports them, naming
	// the command whose --help explains the flags.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "shakectl parking-prob --requests 5": Cobra stops at the
		// group's flags before it reaches the mistyped name, which is the
		// mistake to report.
		if c.Annotations[argsAreCommandsAnnotation] == "true" && c.Flags().NArg() > 0 {
			return unknownCommand(c, c.Flags().Arg(0))
		}
		// A typed setting's flag (--async, -o) refused its value: the
		// words it has from the environment or the config file, naming
		// the flag as the source.
		var invalid *pflag.InvalidValueError
		var usage *cmdutil.UsageError
		if errors.As(err, &invalid) && errors.As(err, &usage) {
			return &cmdutil.UsageError{Msg: usage.Msg + " (from flag --" + invalid.GetFlag().Name + ")"}
		}
		return &cmdutil.UsageError{Msg: plainFlagError(c, err), Command: c.CommandPath()}
	})

	root.AddCommand(version.NewCmd(f))
	// The manual's pages (docs/), one help topic each.
	root.AddCommand(newHelpTopics(f)...)
	// Command groups register here, one constructor each. The client's
	// flags (--api-url, --key, --timeout …) are those of the commands that
	// take them (cmdutil.Verb, cmdutil.Takes); the others refuse them
	// (cmdutil.CheckClientFlags).
	apiCmd := api.NewCmd(f, nil)
	clientGroups := []*cobra.Command{
		instance.NewCmd(f),
		network.NewCmd(f),
		iface.NewCmd(f),
		admin.NewCmd(f),
		backup.NewCmd(f),
		node.NewCmd(f),
		namespace.NewCmd(f),
		clusteroperation.NewCmd(f),
		artifact.NewCmd(f),
		blob.NewCmd(f),
		label.NewCmd(f),
		apiCmd,
		cliconfig.NewCmd(f),
	}
	root.AddCommand(clientGroups...)
	root.AddCommand(clicontext.NewCmd(f))
	// proxy and wrap stand in front of the API for other clients: they
	// take its URL, never credentials, and print no API objects.
	for _, c := range []*cobra.Command{cliproxy.NewCmdProxy(f), cliproxy.NewCmdWrap(f)} {
		setAnnotation(c, cmdutil.OutputsAnnotation, "table,json")
		setAnnotation(c, cmdutil.NoFiltersAnnotation, "true")
		root.AddCommand(c)
	}
	simCmd := sim.NewCmd(f)
	root.AddCommand(simCmd)
	probeCmd := parkingprobe.NewCmd(f)
	// The probe's report is text, JSON or YAML; api prints the answer's
	// body, JSON or YAML. Set here, not in their constructors, so the
	// refusal lives in one place (cmdutil.CheckOutputApplies).
	setAnnotation(probeCmd, cmdutil.OutputsAnnotation, "table,json,yaml")
	setAnnotation(apiCmd, cmdutil.OutputsAnnotation, "json,yaml")
	root.AddCommand(probeCmd)
	completionCmd, demoCmd := completion.NewCmd(f), demo.NewCmd(f, Run)
	root.AddCommand(completionCmd, demoCmd)
	// The demo narrates for a person: -o json would be a tour with JSON
	// lines in it, so it is refused.
	setAnnotation(demoCmd, cmdutil.OutputsAnnotation, "table")
	for _, c := range []*cobra.Command{simCmd, probeCmd, completionCmd, demoCmd} {
		setAnnotation(c, cmdutil.NoFiltersAnnotation, "true")
	}
	root.SetHelpCommand(newCmdHelp(root))
	// gh lists its help topics under the commands; so does shakectl.
	listHelpTopics(root)
	root.InitDefaultHelpCmd() // newCmdHelp joins the tree
	typeUsageErrors(root)
	// Each command's option flags, from what it declares it takes.
	cmdutil.BindOptions(root, f)
	return root
}

// argsAreCommandsAnnotation marks the root and the command groups, whose
// every argument names a subcommand.
const argsAreCommandsAnnotation = "shakectl/args-are-commands"

// typeUsageErrors makes every usage mistake a *UsageError where it happens,
// so no Cobra wording decides the exit code: argument validators' errors are
// wrapped, and a command group (shakectl instance, sim …) answers an unknown
// subcommand with a usage error and Cobra's suggestion instead of printing
// its help and exiting 0.
func typeUsageErrors(c *cobra.Command) {
	for _, sub := range c.Commands() {
		typeUsageErrors(sub)
	}
	if c.HasSubCommands() && !c.Runnable() {
		setAnnotation(c, argsAreCommandsAnnotation, "true")
		c.Args = cobra.ArbitraryArgs
		cmdutil.Local(c, helpOrUnknown)
		return
	}
	if c == c.Root() {
		return
	}
	validate := c.Args
	if validate == nil {
		validate = cobra.ArbitraryArgs
	}
	c.Args = func(c *cobra.Command, args []string) error {
		err := validate(c, args)
		if err == nil {
			return nil
		}
		var u *cmdutil.UsageError
		if errors.As(err, &u) {
			if u.Command == "" {
				u.Command = c.CommandPath()
			}
			return err
		}
		return &cmdutil.UsageError{Msg: err.Error(), Command: c.CommandPath()}
	}
}

// helpOrUnknown is the run of the root and of the command groups: their
// help, or a usage error for an unknown command.
func helpOrUnknown(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	return unknownCommand(c, args[0])
}

// unknownCommand is the usage error for "shakectl instance lst": Cobra's
// "did you mean" suggestions on the same line, readable in one glance.
func unknownCommand(c *cobra.Command, name string) error {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // Cobra's own default
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", strings.Join(s, `" or "`))
	}
	return &cmdutil.UsageError{Msg: msg, Command: c.CommandPath()}
}

func setAnnotation(c *cobra.Command, key, value string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[key] = value
}

// validateFlagRules runs Cobra's own required-flag and flag-group checks
// (MarkFlagRequired, MarkFlagsOneRequired, MarkFlagsMutuallyExclusive,
// MarkFlagsRequiredTogether) here, before any command runs, so that their
// errors are usage errors (exit 2) naming the command. Cobra 1.10 makes
// the same checks after the pre-run hooks and returns them as plain
// errors, bypassing SetFlagErrorFunc: run later, they would exit 1. When
// these pass, Cobra's own run of them passes too.
func validateFlagRules(c *cobra.Command) error {
	for _, check := range []func() error{c.ValidateRequiredFlags, c.ValidateFlagGroups} {
		if err := check(); err != nil {
			return &cmdutil.UsageError{Msg: err.Error(), Command: c.CommandPath()}
		}
	}
	return nil
}
