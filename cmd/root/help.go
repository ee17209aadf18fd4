package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/docs"
	"github.com/shakenfist/shakectl/output"
)

// helpTopics are the hidden leaf commands of root that only print a text
// (shakectl help exit-codes), as opposed to Cobra's own __complete.
func helpTopics(root *cobra.Command) []*cobra.Command {
	var topics []*cobra.Command
	for _, c := range root.Commands() {
		if c.Hidden && !c.HasSubCommands() && !strings.HasPrefix(c.Name(), "__") {
			topics = append(topics, c)
		}
	}
	return topics
}

// newCmdHelp replaces Cobra's help command, which prints the root's usage
// and exits 0 for an unknown topic; ours makes that a usage error (exit 2)
// with a suggestion. `shakectl help` alone lists commands and help topics.
func newCmdHelp(root *cobra.Command) *cobra.Command {
	c := cmdutil.Local(&cobra.Command{
		Use:   "help",
		Short: "Help about any command or topic",
		Long:  `Help about any command, or one of the help topics listed by "shakectl help".`,
	}, func(c *cobra.Command, args []string) error {
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
			} else {
				// Nothing close: say what there is.
				var names []string
				for _, t := range helpTopics(root) {
					names = append(names, t.Name())
				}
				msg += fmt.Sprintf("; the help topics are %s, and every command has help (shakectl help COMMAND)", strings.Join(names, ", "))
			}
			return &cmdutil.UsageError{Msg: msg, Command: "shakectl help"}
		}
		target.InitDefaultHelpFlag()
		return target.Help()
	})
	// "shakectl help instance show" names a command by its path, so the
	// words are not counted; TAB offers the commands, and the help topics
	// the command list hides.
	return builders.ArgsCheckedBy(c, "[command|topic]", cobra.ArbitraryArgs, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var comps []cobra.Completion
		for _, c := range root.Commands() {
			if (c.IsAvailableCommand() || c.Name() == "help") && strings.HasPrefix(c.Name(), toComplete) {
				comps = append(comps, cobra.CompletionWithDesc(c.Name(), c.Short))
			}
		}
		for _, t := range helpTopics(root) {
			if strings.HasPrefix(t.Name(), toComplete) {
				comps = append(comps, cobra.CompletionWithDesc(t.Name(), t.Short))
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	})
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

// listHelpTopics lists the help topics in the root's help, between its
// commands and its flags (gh lists its topics the same way), with Cobra's
// own usage template and one section more. The topics are known when the
// tree is built, so the section is plain text in the template.
func listHelpTopics(root *cobra.Command) {
	var topics strings.Builder
	for _, t := range root.Commands() {
		if t.Annotations[topicAnnotation] == "true" {
			fmt.Fprintf(&topics, "\n  %-*s %s", t.NamePadding(), t.Name(), t.Short)
		}
	}
	const flags = "{{if .HasAvailableLocalFlags}}"
	tmpl := root.UsageTemplate()
	i := strings.Index(tmpl, flags)
	if i < 0 {
		return // a Cobra whose template has no flags section: no topics
	}
	section := "{{if not .HasParent}}\n\nHelp topics (shakectl help TOPIC):" + topics.String() + "{{end}}"
	root.SetUsageTemplate(tmpl[:i] + section + tmpl[i:])
}

// topicAnnotation marks a help topic command.
const topicAnnotation = "shakectl/topic"

// newHelpTopics makes one help topic per page of the manual (docs), in
// its order: `shakectl help NAME` prints the page. Each is a hidden
// command so it does not clutter the command list. A page is read only
// when it is printed: the pages are 140 KB that every start-up would copy
// otherwise (the man pages read them from docs too).
func newHelpTopics(f *cmdutil.Factory) []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range docs.Topics() {
		cmds = append(cmds, newHelpTopic(f, t))
	}
	return cmds
}

// newHelpTopic prints the page as it is written (Markdown) to a pipe or a
// file, so `shakectl help retry > retry.md` is the page, and as plain text
// on a terminal (docs.PlainText).
func newHelpTopic(f *cmdutil.Factory, t docs.Topic) *cobra.Command {
	print := func() error {
		text, err := docs.Text(t)
		if err != nil {
			return fmt.Errorf("help topic %s: %w", t.Name, err)
		}
		ios := f.IOStreams
		out := text
		if ios.IsStdoutTTY() {
			var bold func(string) string
			if ios.ColourEnabled() {
				bold = output.NewColourScheme(true).Bold
			}
			out = docs.PlainText(text, ios.TerminalWidth(), bold)
		}
		_, err = fmt.Fprint(ios.Out, out)
		return err
	}
	c := cmdutil.Local(&cobra.Command{
		Use:         t.Name,
		Short:       t.Short,
		Hidden:      true,
		Annotations: map[string]string{topicAnnotation: "true"},
	}, func(*cobra.Command, []string) error { return print() })
	// `shakectl help exit-codes --help` and `shakectl exit-codes --help`
	// print the page too.
	c.SetHelpFunc(func(*cobra.Command, []string) {
		if err := print(); err != nil {
			f.IOStreams.Notifier().Warn(err.Error())
		}
	})
	return c
}
