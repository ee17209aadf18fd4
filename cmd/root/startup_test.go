package root_test

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// TestOnlyPrintingRunsSkipCatchingInterrupts: help, --version, version and
// help topics do not start catching Ctrl-C; commands that work do, and so
// do completion requests, which may ask the API.
func TestOnlyPrintingRunsSkipCatchingInterrupts(t *testing.T) {
	caught := func(args ...string) bool {
		ios, _, _, _ := output.Test()
		home := t.TempDir()
		var n int
		f := &cmdutil.Factory{IOStreams: ios, HomeDir: home, SystemConfigFile: home + "/none.json",
			CatchInterrupts: func() func() { n++; return func() {} }}
		root.Run(f, args)
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

// TestTreesShareTheSettingsTableUnchanged: the settings table is built once
// per process (issue 44) and every command tree reads it; a command that
// takes only some -o formats gets its own -o usage, and neither a later
// tree's root nor `config view`'s table sees that usage.
func TestTreesShareTheSettingsTableUnchanged(t *testing.T) {
	usage := func(c *cobra.Command) string { return c.PersistentFlags().Lookup("output").Usage }
	var want string
	for _, s := range cmdutil.Settings() {
		if s.Declared().Name == "output" {
			want = s.Declared().Usage
		}
	}
	for i := range 2 {
		ios, _, _, _ := output.Test()
		r := root.NewCmdRoot(&cmdutil.Factory{IOStreams: ios})
		if got := usage(r); got != want {
			t.Errorf("tree %d: the root's -o usage is %q, want the table's %q", i, got, want)
		}
		api, _, err := r.Find([]string{"api"})
		if err != nil {
			t.Fatal(err)
		}
		if got := usage(api); got != "output format: json, yaml" {
			t.Errorf("tree %d: api's -o usage is %q", i, got)
		}
	}
	for _, s := range cmdutil.Settings() {
		if s.Declared().Name == "output" && s.Declared().Usage != want {
			t.Errorf("the table's -o usage became %q", s.Declared().Usage)
		}
	}
}
