package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/output"
)

// eagerRun executes args on the tree as it was built before issue 15's
// start-up work: every flag defined up front, and the help topics listed by
// a usage template rather than spliced into Cobra's usage function. It
// returns stdout.
func eagerRun(t *testing.T, args ...string) string {
	t.Helper()
	ios, _, out, _ := output.Test()
	home := t.TempDir()
	f := &Factory{IOStreams: ios, Build: BuildInfo{Version: "v1.2.3", Commit: "abc", Date: "2026-01-01", GoVersion: "go1.26", Platform: "linux/amd64"},
		HomeDir: home, SystemConfigFile: home + "/none.json",
		Getenv: func(string) (string, bool) { return "", false }, Now: time.Now, Context: context.Background()}
	root := NewCmdRoot(f)
	root.SetHelpFunc(nil)
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .HasAvailableLocalFlags}}",
		`{{if not .HasParent}}

Help topics (shakectl help TOPIC):{{range .Commands}}{{if eq (index .Annotations "`+topicAnnotation+`") "true"}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}`, 1))
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("shakectl %v on the eager tree: %v", args, err)
	}
	return out.String()
}

// lazyRun is a run as main does it: flags of commands the arguments do not
// reach are left undefined.
func lazyRun(t *testing.T, args ...string) string {
	t.Helper()
	ios, _, out, errOut := output.Test()
	home := t.TempDir()
	f := &Factory{IOStreams: ios, Build: BuildInfo{Version: "v1.2.3", Commit: "abc", Date: "2026-01-01", GoVersion: "go1.26", Platform: "linux/amd64"},
		HomeDir: home, SystemConfigFile: home + "/none.json"}
	if code := Run(f, args); code != ExitOK {
		t.Fatalf("shakectl %v: exit %d\n%s", args, code, errOut)
	}
	return out.String()
}

// TestStartupWorkChangesNoOutput: defining a command's flags only when the
// arguments reach it, and listing the help topics without a template
// (issue 15), change no help text and no answer, for every command's
// --help, `help COMMAND`, completions, and the runs that skip the most.
func TestStartupWorkChangesNoOutput(t *testing.T) {
	runs := [][]string{{}, {"--help"}, {"-h"}, {"--version"}, {"version"}, {"version", "-o", "json"}, {"help"},
		{"help", "exit-codes"}, {"exit-codes"},
		{cobra.ShellCompRequestCmd, "parking-probe", "--mode", ""},
		{cobra.ShellCompRequestCmd, "sim", "router", "--"},
		{cobra.ShellCompRequestCmd, "instance", "create", "--"},
		{cobra.ShellCompNoDescRequestCmd, "parking-probe", "job", "--"},
		{cobra.ShellCompRequestCmd, "api", "GET", "/x", "--"},
		{cobra.ShellCompRequestCmd, "network", "create", "n1", "--"},
		{cobra.ShellCompRequestCmd, "instance", "events", "i1", "--type", ""},
		{cobra.ShellCompRequestCmd, "instance", "list", "-"},
	}
	ios, _, _, _ := output.Test()
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Name() != "help" {
			runs = append(runs, append(append([]string{}, path...), "--help"))
		}
		if len(path) > 0 {
			runs = append(runs, append([]string{"help"}, path...))
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(NewCmdRoot(&Factory{IOStreams: ios}), nil)
	for _, args := range runs {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if got, want := lazyRun(t, args...), eagerRun(t, args...); got != want {
				t.Errorf("output differs from the eager tree's\n--- run\n%s\n--- eager\n%s", got, want)
			}
		})
	}
}

// TestVersionDefinesNoDeferredFlags: `shakectl version` and `--help` leave
// the subcommands' flags undefined (the start-up work issue
// 15 cut); `shakectl sim router` defines the router's.
func TestVersionDefinesNoDeferredFlags(t *testing.T) {
	probeDefined := func(args ...string) bool {
		ios, _, _, _ := output.Test()
		f := &Factory{IOStreams: ios}
		f.deferredFlags = make(map[*cobra.Command][]func())
		root := NewCmdRoot(f)
		f.defineReachableFlags(root, args)
		router, _, err := root.Find([]string{"sim", "router"})
		if err != nil {
			t.Fatal(err)
		}
		return router.Flags().Lookup("parked-request-max") != nil
	}
	for _, args := range [][]string{{"version"}, {"--help"}, {"-o", "json", "version"}, {}} {
		if probeDefined(args...) {
			t.Errorf("shakectl %v defined sim router's flags", args)
		}
	}
	for _, args := range [][]string{{"sim", "router"}, {"sim", "router", "--help"}, {"help", "sim", "router"}, {cobra.ShellCompRequestCmd, "sim", "router", "--p"}} {
		if !probeDefined(args...) {
			t.Errorf("shakectl %v left sim router's flags undefined", args)
		}
	}
}

// TestOnlyPrintingRunsSkipCatchingInterrupts: help, --version, version and
// help topics do not start catching Ctrl-C; commands that work do, and so
// do completion requests, which may ask the API.
func TestOnlyPrintingRunsSkipCatchingInterrupts(t *testing.T) {
	caught := func(args ...string) bool {
		ios, _, _, _ := output.Test()
		home := t.TempDir()
		var n int
		f := &Factory{IOStreams: ios, HomeDir: home, SystemConfigFile: home + "/none.json",
			catchInterrupts: func() func() { n++; return func() {} }}
		Run(f, args)
		return n == 1
	}
	for _, args := range [][]string{{}, {"--help"}, {"--version"}, {"version"}, {"-o", "json", "version"}, {"help", "instance"}, {"exit-codes"}, {"nosuch"}, {"version", "--help"}} {
		if caught(args...) {
			t.Errorf("shakectl %v caught interrupts", args)
		}
	}
	for _, args := range [][]string{{"config", "view"}, {"instance", "list"}, {"parking-probe", "merge", "nosuch.json"}, {cobra.ShellCompRequestCmd, "instance", "show", ""}, {"context", "list"}} {
		if !caught(args...) {
			t.Errorf("shakectl %v did not catch interrupts", args)
		}
	}
}
