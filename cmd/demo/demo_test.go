package demo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
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
	code := root.Run(f, []string{"demo"})
	stdout, stderr := out.String(), errOut.String()
	// Act 3's probe and router share this machine's CPUs: the checks that
	// time them (clitest.SpeedCheck) are logged, not judged, and the
	// tour's exit may be theirs alone.
	act3 := stdout[strings.Index(stdout, "Act 3:")+1:]
	probeFailedOnSpeed := strings.Contains(stdout, "Act 3:") && clitest.OnlySpeedChecksFailed(act3) &&
		strings.Contains(stderr, "the demo expected parking-probe to pass its checks against the simulator, it exited 3")
	switch {
	case code == cmdutil.ExitOK:
	case probeFailedOnSpeed:
		t.Logf("demo exited %d: only checks the machine's speed decides failed: %q", code, clitest.FailedChecks(act3))
	default:
		t.Fatalf("demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"$ shakectl node list",
		"(exit 75)",
		"(exit 69)",
		"$ shakectl --retry-transient-capacity --timeout 30s instance create demo-3",
		"Act 2: a pipeline that tests an image",
		"$ shakectl artifact upload ci-image ",
		"source_url\tsf://upload/system/ci-image",
		"$ shakectl instance delete-all --namespace system --yes",
		"$ shakectl --retry-transient-capacity --timeout 30s instance create ci1 2 1024 -d 8@ci-image --async block",
		"disk\t8@ci-image",
		// execute printed the guest's cat of the file put into it.
		"-- cat /opt/run-tests.sh\n#!/bin/sh\necho all tests passed\n(exit 0)",
		"-- sh -c 'exit 3'\n(exit 3)",
		"$ shakectl artifact delete ci-image\n",
		"Act 3: an atenet router that parks requests",
		"✓ all_accounted",
		"✓ reached_parking",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo stdout lacks %q\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"stage sufficient_idle_cpu",
		"--retry-transient-capacity waits and retries",
		"ask for fewer vCPUs",
		"/opt/run-tests.sh of instance ",
		"capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("demo stderr lacks %q\n%s", want, stderr)
		}
	}
	// Everything the pipeline made is gone: the instance and both
	// artifacts print as deleted.
	if n := strings.Count(stdout, "state\tdeleted"); n != 3 {
		t.Errorf("the pipeline left %d of its instance and two artifacts undeleted (want 3 deleted, saw %d)\n%s", 3-n, n, stdout)
	}
	// The ci1 create rode out the teardown lag rather than failing.
	if !strings.Contains(stdout, "-d 8@ci-image --async block\n") || strings.Count(stderr, "retrying in 1s (attempt 2/5") < 2 {
		t.Errorf("the pipeline's create did not retry while the freed capacity came back\n%s", stderr)
	}
	if !probeFailedOnSpeed && (!strings.Contains(stdout, "all checks passed\n") || !strings.Contains(stdout, "Summary")) {
		t.Errorf("the tour passed without its probe passing its checks and its summary:\n%s", stdout)
	}
	// The burst is sized to overflow the lot, so some answers must be shed.
	if !strings.Contains(stdout, "\nshed ") {
		t.Errorf("the probe's burst shed nothing:\n%s", stdout)
	}
}
