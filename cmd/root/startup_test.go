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
