package completion

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// CompletionShells are the shells `shakectl completion` writes scripts for,
// in the order the help lists them.
var CompletionShells = []string{"bash", "zsh", "fish", "powershell"}

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
	return cmdutil.UsageErrorf("unsupported shell %q: want one of %s", shell, strings.Join(CompletionShells, ", "))
}

// NewCmd builds `shakectl completion SHELL`. It replaces Cobra's
// default completion command so the help can say, per shell, where the
// script goes, including the places the deb and rpm packages use.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var noDesc bool
	c := cmdutil.Local(&cobra.Command{
		Use:   "completion",
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
		DisableFlagsInUseLine: true,
	}, func(c *cobra.Command, args []string) error {
		return WriteCompletion(c.Root(), args[0], noDesc, f.IOStreams.Out)
	})
	c.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave out the descriptions shown next to each candidate")
	return builders.ArgsCheckedBy(c, "{bash|zsh|fish|powershell}", func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return cmdutil.UsageErrorf("completion needs exactly one shell: %s", strings.Join(CompletionShells, ", "))
		}
		if !slices.Contains(CompletionShells, args[0]) {
			return cmdutil.UsageErrorf("unsupported shell %q: want one of %s", args[0], strings.Join(CompletionShells, ", "))
		}
		return nil
	}, cmdutil.FixedWithDesc(CompletionShells, nil))
}
