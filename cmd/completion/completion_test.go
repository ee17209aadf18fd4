package completion_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/completion"
	"github.com/shakenfist/shakectl/cmd/root"
)

func TestCompletionScriptsForEveryShell(t *testing.T) {
	// What identifies each shell's script, so an empty or wrong script fails.
	marks := map[string][]string{
		"bash":       {"# bash completion V2 for shakectl", "complete -o default -F __start_shakectl shakectl", "__complete"},
		"zsh":        {"#compdef shakectl", "compdef _shakectl shakectl", "__complete"},
		"fish":       {"complete -c shakectl", "__complete"},
		"powershell": {"Register-ArgumentCompleter", "-CommandName 'shakectl'", "__complete"},
	}
	for _, shell := range completion.CompletionShells {
		t.Run(shell, func(t *testing.T) {
			f, out, errOut := clitest.CompletionTestFactory(t)
			if code := root.Run(f, []string{"completion", shell}); code != cmdutil.ExitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			script := out.String()
			if len(script) < 1000 {
				t.Fatalf("script is %d bytes", len(script))
			}
			for _, m := range marks[shell] {
				if !strings.Contains(script, m) {
					t.Errorf("%s script lacks %q", shell, m)
				}
			}
		})
	}
}

func TestCompletionNoDescriptions(t *testing.T) {
	f, withDesc, _ := clitest.CompletionTestFactory(t)
	root.Run(f, []string{"completion", "fish"})
	f, noDesc, _ := clitest.CompletionTestFactory(t)
	if code := root.Run(f, []string{"completion", "fish", "--no-descriptions"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	// Cobra's fish script asks __complete or __completeNoDesc accordingly.
	if !strings.Contains(noDesc.String(), "__completeNoDesc") || strings.Contains(withDesc.String(), "__completeNoDesc") {
		t.Error("--no-descriptions does not switch the script to __completeNoDesc")
	}
}

func TestCompletionRefusesUnknownShell(t *testing.T) {
	for _, args := range [][]string{{"completion", "tcsh"}, {"completion"}, {"completion", "bash", "zsh"}} {
		f, out, errOut := clitest.CompletionTestFactory(t)
		if code := root.Run(f, args); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cmdutil.ExitUsage)
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote a script anyway", args)
		}
		if !strings.Contains(errOut.String(), "bash, zsh, fish, powershell") {
			t.Errorf("%v: error does not list the shells: %q", args, errOut)
		}
	}
}

func TestCompletionHelpSaysHowToLoadEachShell(t *testing.T) {
	f, out, _ := clitest.CompletionTestFactory(t)
	if code := root.Run(f, []string{"completion", "--help"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"source <(shakectl completion bash)",
		"source <(shakectl completion zsh)",
		"shakectl completion fish | source",
		"shakectl completion powershell | Out-String | Invoke-Expression",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// Cobra's default completion command is replaced, not duplicated.
func TestOnlyOneCompletionCommand(t *testing.T) {
	f, _, _ := clitest.CompletionTestFactory(t)
	root := root.NewCmdRoot(f)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			n++
			if c.Hidden {
				t.Error("the completion command is hidden")
			}
		}
	}
	if n != 1 {
		t.Errorf("%d completion commands", n)
	}
}

func TestCompleteFixedFlagValues(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"version", "-o", ""}, []string{"table", "simple", "json", "yaml"}},
		{[]string{"version", "--output", "j"}, []string{"json"}},
		{[]string{"instance", "list", "--async", ""}, []string{"continue", "pause", "block"}},
		{[]string{"instance", "list", "--async", "b"}, []string{"block"}},
	}
	for _, tt := range tests {
		f, out, _ := clitest.CompletionTestFactory(t)
		got, directive := clitest.RunComplete(t, f, out, tt.args...)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: got %q, want %q", tt.args, got, tt.want)
		}
		if directive != clitest.NoFileCompLine {
			t.Errorf("%q: directive %s, want %s (no file names)", tt.args, directive, clitest.NoFileCompLine)
		}
	}
}

func TestCompleteHelpOffersTopics(t *testing.T) {
	f, out, _ := clitest.CompletionTestFactory(t)
	got, _ := clitest.RunComplete(t, f, out, "help", "")
	for _, want := range []string{"exit-codes", "version", "completion"} {
		if !slices.Contains(got, want) {
			t.Errorf("help <TAB> offers %q, lacks %q", got, want)
		}
	}
	f, out, _ = clitest.CompletionTestFactory(t)
	got, _ = clitest.RunComplete(t, f, out, "help", "ex")
	if strings.Join(got, " ") != "exit-codes" {
		t.Errorf("help ex<TAB> offers %q", got)
	}
	// __complete itself is no topic.
	f, out, _ = clitest.CompletionTestFactory(t)
	got, _ = clitest.RunComplete(t, f, out, "help", "_")
	if len(got) != 0 {
		t.Errorf("help _<TAB> offers %q", got)
	}
}

func TestCompleteShellNames(t *testing.T) {
	f, out, _ := clitest.CompletionTestFactory(t)
	got, _ := clitest.RunComplete(t, f, out, "completion", "")
	if strings.Join(got, " ") != "bash zsh fish powershell" {
		t.Errorf("completion <TAB> offers %q", got)
	}
}

func TestCompleteDistribution(t *testing.T) {
	tests := []struct {
		toComplete string
		want       []string
		noSpace    bool
	}{
		{"", []string{"uniform", "hot:", "zipf:"}, true},
		{"u", []string{"uniform"}, false},
		{"h", []string{"hot:"}, true},
		{"hot:", []string{"hot:0.5", "hot:0.8", "hot:0.95"}, false},
		{"hot:0.9", []string{"hot:0.95"}, false},
		{"zipf:", []string{"zipf:1.1", "zipf:2"}, false},
		{"zipf:7", nil, false},
		{"pareto:", nil, false},
		{"x", nil, false},
	}
	for _, tt := range tests {
		comps, directive := complete.Distribution(nil, nil, tt.toComplete)
		var got []string
		for _, c := range comps {
			name, _, _ := strings.Cut(c, "\t")
			got = append(got, name)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: got %q, want %q", tt.toComplete, got, tt.want)
		}
		if directive&cobra.ShellCompDirectiveNoFileComp == 0 {
			t.Errorf("%q: file names offered", tt.toComplete)
		}
		if noSpace := directive&cobra.ShellCompDirectiveNoSpace != 0; noSpace != tt.noSpace {
			t.Errorf("%q: no-space %v, want %v", tt.toComplete, noSpace, tt.noSpace)
		}
	}
}
