package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// completionShells are the shells `shakectl completion` writes scripts for,
// in the order the help lists them.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// WriteCompletion writes root's completion script for shell to w, with
// descriptions unless noDesc. The scripts only embed the program name: they
// ask `shakectl __complete` at TAB time, so one script serves every version.
// The generator of completions/ calls it too, so the committed scripts are
// byte for byte what the command prints.
func WriteCompletion(root *cobra.Command, shell string, noDesc bool, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, !noDesc)
	case "zsh":
		if noDesc {
			return root.GenZshCompletionNoDesc(w)
		}
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, !noDesc)
	case "powershell":
		if noDesc {
			return root.GenPowerShellCompletion(w)
		}
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return usageErrorf("unsupported shell %q: want one of %s", shell, strings.Join(completionShells, ", "))
}

// NewCmdCompletion builds `shakectl completion SHELL`. It replaces Cobra's
// default completion command so the help can say, per shell, where the
// script goes, including the places the deb and rpm packages use.
func NewCmdCompletion(f *Factory) *cobra.Command {
	var noDesc bool
	c := &cobra.Command{
		Use:   "completion {bash|zsh|fish|powershell}",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `Print a script that makes your shell complete shakectl's commands, flags and
arguments, including instance, network and node names fetched from the API
(with a 2 s limit; nothing is offered when the API cannot be reached) and
the values of -o, --async and --distribution.

The deb and rpm packages install the bash, zsh and fish scripts for you;
start a new shell after installing. Otherwise, load the script as follows.

Bash (needs the bash-completion package, version 2; on macOS
"brew install bash-completion@2"):

  # this shell only
  source <(shakectl completion bash)

  # every new shell, for you
  mkdir -p ~/.local/share/bash-completion/completions
  shakectl completion bash > ~/.local/share/bash-completion/completions/shakectl

  # every new shell, for everyone (Linux)
  shakectl completion bash | sudo tee /usr/share/bash-completion/completions/shakectl >/dev/null

  # every new shell, macOS with Homebrew
  shakectl completion bash > "$(brew --prefix)/etc/bash_completion.d/shakectl"

Zsh (completion must be enabled: "autoload -U compinit; compinit" in ~/.zshrc):

  # this shell only
  source <(shakectl completion zsh)

  # every new shell: put _shakectl in a directory on $fpath, e.g.
  mkdir -p ~/.zsh/completions
  shakectl completion zsh > ~/.zsh/completions/_shakectl
  # and in ~/.zshrc, before compinit:  fpath=(~/.zsh/completions $fpath)

  # macOS with Homebrew
  shakectl completion zsh > "$(brew --prefix)/share/zsh/site-functions/_shakectl"

Fish:

  # this shell only
  shakectl completion fish | source

  # every new shell
  shakectl completion fish > ~/.config/fish/completions/shakectl.fish

PowerShell:

  # this shell only
  shakectl completion powershell | Out-String | Invoke-Expression

  # every new shell: add the line above to your profile
  Add-Content $PROFILE 'shakectl completion powershell | Out-String | Invoke-Expression'

If completion misbehaves, run "shakectl __complete instance show ''" to see
what the shell is offered.`,
		Example: `  source <(shakectl completion bash)
  shakectl completion fish > ~/.config/fish/completions/shakectl.fish`,
		ValidArgs:             completionShells,
		DisableFlagsInUseLine: true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("completion needs exactly one shell: %s", strings.Join(completionShells, ", "))
			}
			if !contains(completionShells, args[0]) {
				return usageErrorf("unsupported shell %q: want one of %s", args[0], strings.Join(completionShells, ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return WriteCompletion(c.Root(), args[0], noDesc, f.IOStreams.Out)
		},
	}
	f.defineFlags(c, func() {
		c.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave out the descriptions shown next to each candidate")
	})
	return c
}

// registerRootCompletions teaches the shell the values of the root's
// persistent flags and the help topics. Fixed choices come from the same
// lists the config validation uses, so the two cannot drift apart.
func registerRootCompletions(root *cobra.Command, f *Factory) {
	outputDesc := map[string]string{
		"table":  "aligned columns for people",
		"simple": "plain tab-separated rows for scripts",
		"json":   "the API's JSON, nothing else on stdout",
		"yaml":   "the API's objects as YAML",
	}
	must(root.RegisterFlagCompletionFunc("output", fixedWithDesc(outputFormats, outputDesc)))
	must(root.MarkPersistentFlagFilename("config", "yaml", "yml"))
	must(root.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions))

	// Cobra's help command offers only visible commands; help topics such
	// as exit-codes are hidden from the command list, so add them here.
	root.InitDefaultHelpCmd()
	if help, _, err := root.Find([]string{"help"}); err == nil && help != root && help.ValidArgsFunction != nil {
		visible := help.ValidArgsFunction
		help.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			comps, directive := visible(c, args, toComplete)
			if len(args) == 0 {
				for _, t := range helpTopics(c.Root()) {
					if strings.HasPrefix(t.Name(), toComplete) {
						comps = append(comps, cobra.CompletionWithDesc(t.Name(), t.Short))
					}
				}
			}
			return comps, directive
		}
	}
}

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

// completeDistribution completes parking-probe's --distribution: the three
// kinds, then, once "hot:" or "zipf:" is typed, typical parameters. A kind
// that needs a parameter is offered without the trailing space so the
// number can follow at once.
func completeDistribution(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if kind, _, ok := strings.Cut(toComplete, ":"); ok {
		examples := map[string][]cobra.Completion{
			"hot": {
				cobra.CompletionWithDesc("hot:0.5", "half the requests to the first actor"),
				cobra.CompletionWithDesc("hot:0.8", "80% to the first actor, the rest spread evenly"),
				cobra.CompletionWithDesc("hot:0.95", "nearly all to one actor"),
			},
			"zipf": {
				cobra.CompletionWithDesc("zipf:1.1", "mild skew, like web traffic"),
				cobra.CompletionWithDesc("zipf:2", "steep skew: a few actors get most requests"),
			},
		}[kind]
		var comps []cobra.Completion
		for _, e := range examples {
			if strings.HasPrefix(e, toComplete) {
				comps = append(comps, e)
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
	kinds := []struct{ value, desc string }{
		{"uniform", "every actor equally likely"},
		{"hot:", "hot:FRACTION of the requests to the first actor"},
		{"zipf:", "zipf:S, the k-th actor's share proportional to 1/k^S"},
	}
	var comps []cobra.Completion
	directive := cobra.ShellCompDirectiveNoFileComp
	for _, k := range kinds {
		if strings.HasPrefix(k.value, toComplete) {
			comps = append(comps, cobra.CompletionWithDesc(k.value, k.desc))
			if strings.HasSuffix(k.value, ":") {
				directive |= cobra.ShellCompDirectiveNoSpace
			}
		}
	}
	return comps, directive
}

// fixedWithDesc completes a fixed set of values, each with a description,
// and never file names. Values are filtered by what is typed so far, so the
// answer is right even for a shell that does not filter.
func fixedWithDesc(values []string, desc map[string]string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var comps []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				comps = append(comps, cobra.CompletionWithDesc(v, desc[v]))
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
}

// must panics on a programming error in the command tree's wiring (a flag
// name that does not exist); tests catch it long before a user could.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("completion wiring: %v", err))
	}
}
