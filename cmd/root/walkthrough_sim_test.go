package root_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestCloudWalkThroughAgainstSimCluster runs the cloud page's walk-through
// (network create, instance create -n, poweroff, a refused reboot, poweron,
// reboot, events, deletes) against the cluster simulator, in memory on
// synctest's clock, as one user session. TestCloudWalkThrough runs it
// against recorded real answers; this one checks that the client and the
// simulator, each written from the server's source, agree with each other
// end to end: the network starts initial and must be waited for, power
// actions answer null, the reboot of a powered-off instance is a 409,
// deletes answer 200.
//
// It runs against both server generations (issue 25): the one visible
// difference is network delete, which a 2026 server answers with a
// cluster operation that shakectl follows to "complete" and prints, and a
// 2024 server with the network, which shakectl waits for until "deleted".
func TestCloudWalkThroughAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { walkThroughAgainstSim(t, gen) }) })
	}
}

func walkThroughAgainstSim(t *testing.T, gen string) {
	r := startSim(t, gen, clitest.TestNamespace, 300*time.Millisecond)
	step := stepper(t, r)

	if res := step(0, "network", "create", "mynet", "10.0.0.0/24", "-o", "simple"); !strings.Contains(res.Stdout, "state\tcreated\n") {
		t.Fatalf("network create did not wait for created:\n%s", res)
	}
	res := step(0, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "-n", "mynet", "-o", "simple")
	if !strings.Contains(res.Stdout, "state\tcreated\n") || !strings.Contains(res.Stdout, "10.0.0.") {
		t.Fatalf("instance create: want created with an address on mynet\n%s", res)
	}
	if res := step(0, "instance", "list", "-o", "columns=name,state,addresses"); !strings.Contains(res.Stdout, "web1") || !strings.Contains(res.Stdout, "10.0.0.") {
		t.Errorf("instance list shows no address:\n%s", res)
	}
	if res := step(0, "instance", "poweroff", "web1"); res.Stdout != "" {
		t.Errorf("poweroff printed %q on stdout", res.Stdout)
	}
	if res := step(cmdutil.ExitFailure, "instance", "reboot", "web1"); !strings.Contains(res.Stderr, "Invalid lifecycle state") {
		t.Errorf("reboot of a powered-off instance:\n%s", res)
	}
	step(0, "instance", "poweron", "web1")
	step(0, "instance", "reboot", "web1")
	step(0, "instance", "reboot", "web1", "--hard")
	res = step(0, "instance", "events", "web1", "--limit", "2", "-o", "json", "--jq", ".[].message")
	if lines := strings.Split(strings.TrimSpace(res.Stdout), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "reboot") {
		t.Errorf("events, newest first, limited to 2: %q", res.Stdout)
	}
	if res := step(0, "instance", "delete", "web1", "-o", "simple"); !strings.Contains(res.Stdout, "state\tdeleted\n") {
		t.Errorf("instance delete:\n%s", res)
	}
	res = step(0, "network", "delete", "mynet", "-o", "simple")
	want := "state\tdeleted\n"
	if gen == cluster.Generation2026 {
		// The operation, followed to its end.
		want = "state\tcomplete\n"
		if !strings.Contains(res.Stdout, "operation_type\tnet_op\n") {
			t.Errorf("network delete does not print the operation:\n%s", res)
		}
	}
	if !strings.Contains(res.Stdout, want) {
		t.Errorf("network delete: want %q\n%s", want, res)
	}
	if res := step(0, "network", "list", "-o", "json"); strings.TrimSpace(res.Stdout) != "[]" {
		t.Errorf("network list after delete: %q", res.Stdout)
	}
}
