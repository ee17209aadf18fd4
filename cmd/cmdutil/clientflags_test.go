package cmdutil_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output"
)

// The client's flags are refused, not silently ignored, where they mean
// nothing; before any simulator or probe starts.
func TestClientFlagsAreRefusedWhereTheyDoNotApply(t *testing.T) {
	cases := [][]string{
		{"sim", "cluster", "--key", "k"},
		{"sim", "router", "--api-url", "http://x"},
		{"demo", "--key", "k"},
		{"parking-probe", "--target", "http://127.0.0.1:1", "--retry-transient-capacity"},
		{"parking-probe", "--target", "http://127.0.0.1:1", "--async", "block"},
		{"--namespace", "x", "version"},
		// The output filters work on the API's objects only.
		{"parking-probe", "--target", "http://127.0.0.1:1", "--jq", ".requests"},
		{"sim", "router", "--no-headers"},
		{"demo", "--jq", "."},
		{"completion", "bash", "--no-headers"},
	}
	for _, args := range cases {
		r := clitest.CmdRun{}.Run(t, args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Stderr, "does not apply to") || strings.Contains(r.Stderr, "warning") {
			t.Errorf("shakectl %v:\n%s", args, r)
		}
	}
}

// The probe's own --timeout (per request) is still its own.
func TestProbeOwnTimeoutIsNotAClientFlag(t *testing.T) {
	if err := checkClientFlagsFor(t, "parking-probe", "--timeout", "2s"); err != nil {
		t.Error(err)
	}
}

func checkClientFlagsFor(t *testing.T, args ...string) error {
	f := &cmdutil.Factory{}
	f.IOStreams = testIOStreams()
	root := root.NewCmdRoot(f)
	c, rest, err := root.Find(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	return cmdutil.CheckClientFlags(c)
}

// -o values a command cannot honour are refused when asked for.
func TestOutputFormatsThatDoNotApply(t *testing.T) {
	for _, args := range [][]string{
		{"parking-probe", "--target", "http://127.0.0.1:1", "-o", "simple"},
		{"api", "GET", "/instances", "-o", "table"},
	} {
		r := clitest.CmdRun{}.Run(t, args...)
		if r.Code != cmdutil.ExitUsage || !strings.Contains(r.Stderr, "does not apply to") {
			t.Errorf("shakectl %v:\n%s", args, r)
		}
	}
}

// Client flags still work before the subcommand, as they always have.
func TestClientFlagsBeforeTheSubcommand(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/instances", 200, string(clitest.JoinRaw(clitest.FixtureInstances)))
	r := clitest.AgainstStubs(s)
	if res := r.Run(t, "--timeout", "30s", "--namespace", clitest.TestNamespace, "instance", "list"); res.Code != 0 {
		t.Error(res)
	}
}

func testIOStreams() *output.IOStreams {
	s, _, _, _ := output.Test()
	return s
}
