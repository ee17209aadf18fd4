package demo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/cli/root"
	"github.com/shakenfist/shakectl/output"
)

// TestDemoTour runs the whole demo against its embedded simulators and
// checks that each act showed what it narrates: the two kinds of refusal
// with their exit codes, the retry lines on stderr, and a probe whose checks
// passed.
func TestDemoTour(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo takes a few seconds")
	}
	streams, _, out, errOut := output.Test()
	f := &cmdutil.Factory{
		IOStreams: streams,
		Build:     cmdutil.BuildInfo{Version: "test"},
		Now:       time.Now,
		Context:   context.Background(),
		Getenv:    func(string) (string, bool) { return "", false },
	}
	if code := root.Run(f, []string{"demo"}); code != cmdutil.ExitOK {
		t.Fatalf("demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	stdout, stderr := out.String(), errOut.String()
	for _, want := range []string{
		"$ shakectl node list",
		"(exit 75)",
		"(exit 69)",
		"$ shakectl --retry-transient-capacity --timeout 30s instance create demo-3",
		"Act 2: an atenet router that parks requests",
		"all checks passed",
		"Summary",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo stdout lacks %q\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"stage sufficient_idle_cpu",
		"--retry-transient-capacity waits and retries",
		"ask for fewer vCPUs",
		"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("demo stderr lacks %q\n%s", want, stderr)
		}
	}
	// The burst is sized to overflow the lot, so some answers must be shed.
	if !strings.Contains(stdout, "\nshed ") {
		t.Errorf("the probe's burst shed nothing:\n%s", stdout)
	}
}
