package demo_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/memnet"
	"github.com/shakenfist/shakectl/output"
)

// TestDemoTour runs the whole demo against its embedded simulators and
// checks that each act showed what it narrates: the two kinds of refusal
// with their exit codes, the retry lines on stderr, and a probe whose checks
// all passed.
//
// The tour runs inside a testing/synctest bubble, its simulators, API client
// and probe on an in-memory network (Factory.Net): every wait (Retry-After,
// teardown lag, create time, park budget, service time) is on the bubble's
// virtual clock, so the test takes a fraction of a second, and the probe's
// timing checks (shed_fast, budget_bound, parked, no_envoy_overflow),
// logged and not judged while the tour ran on loopback, measure the
// simulator's behaviour, not the machine's speed: they are judged like
// every other check.
func TestDemoTour(t *testing.T) {
	synctest.Test(t, testDemoTour)
}

func testDemoTour(t *testing.T) {
	streams, _, out, errOut := output.Test()
	f := &cmdutil.Factory{
		IOStreams: streams,
		Build:     cmdutil.BuildInfo{Version: "test"},
		Now:       time.Now,
		Context:   context.Background(),
		Getenv:    func(string) (string, bool) { return "", false },
		Net:       &memnet.Network{},
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
		"Act 2: a pipeline that tests an image",
		"$ shakectl artifact upload ci-image ",
		"source_url\tsf://upload/system/ci-image",
		"$ shakectl instance delete-all --all-namespaces --yes",
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
	if !strings.Contains(stdout, "all checks passed\n") || !strings.Contains(stdout, "Summary") {
		t.Errorf("the tour passed without its probe passing its checks and its summary:\n%s", stdout)
	}
	// The checks that time the router were judged, on the virtual clock.
	for _, check := range []string{"shed_fast", "budget_bound", "parked", "no_envoy_overflow"} {
		if !regexp.MustCompile(`(?m)^ *✓ ` + check + ` `).MatchString(stdout) {
			t.Errorf("the probe's %s check did not pass:\n%s", check, stdout)
		}
	}
	// The burst is sized to overflow the lot, so some answers must be shed.
	if !strings.Contains(stdout, "\nshed ") {
		t.Errorf("the probe's burst shed nothing:\n%s", stdout)
	}
}
