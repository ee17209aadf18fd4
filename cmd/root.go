package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/output"
)

// NewCmdRoot builds the whole command tree for one run.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "shakectl <command> <subcommand> [flags]",
		Short: "Shakenfist cloud client and atenet request-parking probe",
		Long: `shakectl talks to a Shakenfist cloud (instances, networks, nodes,
namespaces, raw API calls), load-tests the atenet router's request parking
(parking-probe), and runs local simulators of both servers (sim, demo).

Settings come from flags, then the environment, then
$XDG_CONFIG_HOME/shakectl/config.yaml, then sf-client's files; see
"shakectl help configuration" and "shakectl config view".

Try "shakectl demo" for a tour against the embedded simulators, and
"shakectl help exit-codes" for what the exit status means.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Completion is our own command (shakectl completion SHELL), with
		// help for each shell; Cobra's default one is switched off.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		// Runnable, so that "shakectl nosuch" reaches this RunE: a typed
		// usage error rather than Cobra's legacy argument check.
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return unknownCommand(c, args[0])
		},
		Version:     f.Build.Version,
		Annotations: map[string]string{argsAreCommandsAnnotation: "true"},
	}
	root.SetVersionTemplate(versionText(f.Build))
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	root.SetIn(f.IOStreams.In)
	// The command that runs decides which flags the configuration reads:
	// the client's flags exist only on the client command groups.
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		f.command = c
		if err := checkClientFlags(c); err != nil {
			return err
		}
		if err := checkOutputFilters(c); err != nil {
			return err
		}
		return checkOutputApplies(c)
	}

	pf := root.PersistentFlags()
	pf.StringP("output", "o", "table", "output format: table, simple, json, yaml, or columns=NAME,STATE,… (a table of those columns)")
	pf.Bool("no-headers", false, "print tables without their header line")
	pf.String("jq", "", "filter JSON output with a jq expression (implies -o json), e.g. '.[].name'")
	pf.Bool("no-color", false, "never colour the output")
	pf.Bool("quiet", false, "print no progress or retry lines on stderr")
	addClientFlags(root, f)
	pf.String("config", "", "config file (default $XDG_CONFIG_HOME/shakectl/config.yaml)")

	f.Config = memoConfig(func() (*Config, error) {
		f.configResolved = true
		cfg, err := loadConfig(runFlags(root, f.command), f.Getenv, f.HomeDir, f.SystemConfigFile)
		if err != nil {
			return nil, err
		}
		if cfg.NoColor {
			f.IOStreams.SetColour(false)
		}
		opts := output.TableOptions{Header: cfg.OutputExplicit, NoHeaders: cfg.NoHeaders, Columns: cfg.Columns}
		if cfg.JQ != "" {
			code, err := output.ParseJQ(cfg.JQ)
			if err != nil {
				return nil, &UsageError{Msg: err.Error()}
			}
			opts.JQ = code
		}
		f.IOStreams.SetTableOptions(opts)
		for _, w := range cfg.Warnings {
			warn(f.IOStreams, cfg, w)
		}
		return cfg, nil
	})
	if f.Client == nil {
		f.Client = clientFunc(f)
	}
	if f.Plotter == nil {
		f.Plotter = func() (PlotFunc, error) { return helperPlotter(f.Getenv) }
	}

	// Flag errors are usage errors typed where Cobra reports them, naming
	// the command whose --help explains the flags.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "shakectl parking-prob --requests 5": Cobra stops at the
		// group's flags before it reaches the mistyped name, which is the
		// mistake to report.
		if c.Annotations[argsAreCommandsAnnotation] == "true" && c.Flags().NArg() > 0 {
			return unknownCommand(c, c.Flags().Arg(0))
		}
		return &UsageError{Msg: err.Error(), Command: c.CommandPath()}
	})

	root.AddCommand(
		NewCmdVersion(f),
		newHelpTopic("exit-codes", "What shakectl's exit status means", exitCodeTopic),
		newHelpTopic("configuration", "Where settings come from, and in which order", configTopic),
	)
	// Command groups register here, one constructor each. The client's
	// flags (--api-url, --key, --timeout …) apply to these groups only:
	// parking-probe, sim and demo refuse them (checkClientFlags).
	clientGroups := []*cobra.Command{
		NewCmdInstance(f),
		NewCmdNetwork(f),
		NewCmdNode(f),
		NewCmdNamespace(f),
		NewCmdAPI(f, nil),
		NewCmdConfig(f),
	}
	for _, g := range clientGroups {
		setAnnotation(g, clientAnnotation, "true")
	}
	root.AddCommand(clientGroups...)
	root.AddCommand(NewCmdContext(f))
	simCmd := NewCmdSim(f)
	root.AddCommand(simCmd)
	probeCmd := NewCmdParkingProbe(f)
	// The probe's report is text, JSON or YAML; api prints the answer's
	// body, JSON or YAML. Set here, not in their constructors, so the
	// refusal lives in one place (checkOutputApplies).
	setAnnotation(probeCmd, outputsAnnotation, "table,json,yaml")
	setAnnotation(clientGroups[4], outputsAnnotation, "json,yaml")
	root.AddCommand(probeCmd)
	completionCmd, demoCmd := NewCmdCompletion(f), NewCmdDemo(f)
	root.AddCommand(completionCmd, demoCmd)
	for _, c := range []*cobra.Command{simCmd, probeCmd, completionCmd, demoCmd} {
		setAnnotation(c, noFiltersAnnotation, "true")
	}
	root.SetHelpCommand(newCmdHelp(root))
	// gh lists its help topics under the commands; so does shakectl.
	listHelpTopics(root)
	registerRootCompletions(root, f)
	typeUsageErrors(root)
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
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return unknownCommand(c, args[0])
		}
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
		var u *UsageError
		if errors.As(err, &u) {
			if u.Command == "" {
				u.Command = c.CommandPath()
			}
			return err
		}
		return &UsageError{Msg: err.Error(), Command: c.CommandPath()}
	}
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
	return &UsageError{Msg: msg, Command: c.CommandPath()}
}

// newCmdHelp replaces Cobra's help command, which prints the root's usage
// and exits 0 for an unknown topic; ours makes that a usage error (exit 2)
// with a suggestion. `shakectl help` alone lists commands and help topics.
func newCmdHelp(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command|topic]",
		Short: "Help about any command or topic",
		Long:  `Help about any command, or one of the help topics listed by "shakectl help".`,
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				name := strings.Join(args, " ")
				if len(rest) > 0 {
					name = rest[0]
				}
				parent := root
				if target != nil {
					parent = target
				}
				msg := fmt.Sprintf("unknown help topic %q", name)
				var sugg []string
				for _, t := range helpTopics(root) {
					if strings.HasPrefix(t.Name(), name) || levenshteinClose(t.Name(), name) {
						sugg = append(sugg, t.Name())
					}
				}
				if parent.SuggestionsMinimumDistance <= 0 {
					parent.SuggestionsMinimumDistance = 2
				}
				sugg = append(sugg, parent.SuggestionsFor(name)...)
				if len(sugg) > 0 {
					msg += fmt.Sprintf("; did you mean %q?", strings.Join(sugg, `" or "`))
				}
				return &UsageError{Msg: msg, Command: "shakectl help"}
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
		// The commands; the hidden help topics are added with the other
		// root completions.
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var comps []cobra.Completion
			for _, c := range root.Commands() {
				if (c.IsAvailableCommand() || c.Name() == "help") && strings.HasPrefix(c.Name(), toComplete) {
					comps = append(comps, cobra.CompletionWithDesc(c.Name(), c.Short))
				}
			}
			// registerRootCompletions adds the help topics.
			return comps, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// levenshteinClose says whether two short names differ by at most two
// edits, the distance Cobra uses for its own suggestions.
func levenshteinClose(a, b string) bool {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)] <= 2
}

// listHelpTopics adds the help topics to the root's help, between its
// commands and its flags. Cobra's usage text is a Go function unless a
// template replaces it; parsing and running that template cost `shakectl
// --help` about a third of a millisecond and 300 KiB of memory (issue 15),
// so the topics are spliced into Cobra's own text instead.
func listHelpTopics(root *cobra.Command) {
	cobraHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != root {
			cobraHelp(c, args)
			return
		}
		var b strings.Builder
		out := c.OutOrStdout()
		c.SetOut(&b)
		cobraHelp(c, args)
		c.SetOut(out)
		topics := "\n\nHelp topics (shakectl help TOPIC):"
		for _, t := range root.Commands() {
			if t.Annotations[topicAnnotation] == "true" {
				topics += fmt.Sprintf("\n  %-*s %s", t.NamePadding(), t.Name(), t.Short)
			}
		}
		text := b.String()
		if i := strings.Index(text, "\n\nFlags:\n"); i >= 0 {
			text = text[:i] + topics + text[i:]
		}
		fmt.Fprint(out, text)
	})
}

// topicAnnotation marks a help topic command.
const topicAnnotation = "shakectl/topic"

// newHelpTopic makes `shakectl help NAME` print a text; the topic is a
// hidden command so it does not clutter the command list.
func newHelpTopic(name, short, text string) *cobra.Command {
	c := &cobra.Command{
		Use:         name,
		Short:       short,
		Long:        text,
		Hidden:      true,
		Annotations: map[string]string{topicAnnotation: "true"},
		Args:        cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(c.OutOrStdout(), text)
			return err
		},
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprint(c.OutOrStdout(), strings.TrimLeft(text, "\n"))
	})
	return c
}

func setAnnotation(c *cobra.Command, key, value string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[key] = value
}
