package root_test

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// Cobra's flag groups are usage errors (exit 2) naming the command, not
// plain failures: instance add-interface takes exactly one of -n/-f/-N.
func TestFlagGroupErrorsAreUsageErrors(t *testing.T) {
	fa := clitest.NewStubs(t) // no answers: a request fails the test
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"instance", "add-interface", "web1"}, "at least one of the flags in the group [network floated networkspec] is required"},
		{[]string{"instance", "add-interface", "web1", "-n", "net1", "-f", "net2"}, "if any flags in the group [network floated networkspec] are set none of the others can be"},
	}
	for _, c := range cases {
		r := clitest.AgainstStubs(fa).Run(t, c.args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "see 'shakectl instance add-interface --help'") {
			t.Errorf("shakectl %v: want exit 2 and %q\n%s", c.args, c.want, r)
		}
	}
	if n := fa.Count("POST", "/instances/web1/interfaces"); n != 0 {
		t.Errorf("%d requests sent for a usage error", n)
	}
}

// A required flag (no shipped command marks one yet) and a
// required-together group are usage errors too, from any command the
// root runs: the rule lives in the root, not in each command.
func TestRequiredFlagErrorsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		mark func(c *cobra.Command)
		want string
	}{
		{[]string{"probe-required"}, func(c *cobra.Command) { cmdutil.Must(c.MarkFlagRequired("a")) },
			`required flag(s) "a" not set`},
		{[]string{"probe-required", "--a", "1"}, func(c *cobra.Command) { c.MarkFlagsRequiredTogether("a", "b") },
			"if any flags in the group [a b] are set they must all be set; missing [b]"},
	} {
		f := &cmdutil.Factory{}
		f.IOStreams, _, _, _ = output.Test()
		r := root.NewCmdRoot(f)
		ran := false
		c := &cobra.Command{Use: "probe-required", RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
		c.Flags().String("a", "", "")
		c.Flags().String("b", "", "")
		tc.mark(c)
		r.AddCommand(c)
		r.SetArgs(tc.args)
		err := r.ExecuteContext(t.Context())
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) || ran {
			t.Errorf("%v: err = %v (exit %d, ran %v), want a usage error %q", tc.args, err, cmdutil.ExitCode(err), ran, tc.want)
		}
	}
}
