package network_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// startSim makes sim cluster of one generation in memory for one test,
// which runs inside a testing/synctest bubble: the simulator's deploys,
// teardowns and operations take their time on the bubble's clock, so a
// wait (and a --timeout running out) costs no wall time.
func startSim(t *testing.T, gen string, tweak func(*cluster.Config)) (*cluster.Server, clitest.CmdRun) {
	t.Helper()
	r, sim := clitest.SimClusterInMemory(t, gen, func(cfg *cluster.Config) {
		cfg.AuthNamespace = clitest.TestNamespace
		cfg.CreateTime = 20 * time.Millisecond
		cfg.NetworkDeployTime = 100 * time.Millisecond
		cfg.TeardownLag = 20 * time.Millisecond
		if tweak != nil {
			tweak(cfg)
		}
	})
	r.Env = nil
	return sim, r
}

func mustRun(t *testing.T, r clitest.CmdRun, want int, args ...string) clitest.RunResult {
	t.Helper()
	res := r.Run(t, args...)
	if res.Code != want {
		t.Fatalf("shakectl %s: exit %d, want %d\n%s", strings.Join(args, " "), res.Code, want, res)
	}
	return res
}

// Against a 2026 sim whose network node fails the delete
// (--network-op-errors), network delete waits for the operation and fails
// clearly, with the operation's own error; the network is still there, and
// a second delete completes.
func TestNetworkDeleteAgainstSim2026FailsOnAnOperationError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, r := startSim(t, cluster.Generation2026, func(c *cluster.Config) { c.NetworkOpErrors = 1 })
		mustRun(t, r, 0, "network", "create", "net1", "10.1.0.0/24")
		res := mustRun(t, r, cmdutil.ExitFailure, "network", "delete", "net1", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\terror\n") ||
			!strings.Contains(res.Stderr, "ended in state error: network delete failed on the network node") ||
			!strings.Contains(res.Stderr, "shakectl cluster-operation show net_op/") {
			t.Fatalf("the failed operation is not reported:\n%s", res)
		}
		if res := mustRun(t, r, 0, "network", "show", "net1", "-o", "simple"); !strings.Contains(res.Stdout, "state\tcreated\n") {
			t.Errorf("after a failed delete:\n%s", res)
		}
		if res := mustRun(t, r, 0, "network", "delete", "net1", "-o", "json"); !strings.Contains(res.Stdout, `"state": "complete"`) {
			t.Errorf("second delete:\n%s", res)
		}
	})
}

// A 2026 delete of a network that still has an interface stays executing
// until the instance goes; --async continue prints the handle, and
// cluster-operation show follows it (and its chain) to complete.
func TestNetworkDeleteAgainstSim2026ContinueAndShow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, r := startSim(t, cluster.Generation2026, nil)
		mustRun(t, r, 0, "network", "create", "net1", "10.1.0.0/24")
		mustRun(t, r, 0, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "-n", "net1")
		res := mustRun(t, r, 0, "network", "delete", "net1", "--async", "continue", "-o", "json")
		var h struct{ OpType, OpUUID string }
		var raw map[string]string
		if json.Unmarshal([]byte(res.Stdout), &raw) != nil || raw["op_type"] != "net_op" || raw["op_uuid"] == "" {
			t.Fatalf("no handle:\n%s", res)
		}
		h.OpType, h.OpUUID = raw["op_type"], raw["op_uuid"]
		ref := h.OpType + "/" + h.OpUUID
		// The deletion waits for the interface.
		res = mustRun(t, r, 0, "cluster-operation", "show", ref, "-o", "simple")
		if strings.Contains(res.Stdout, "state\tcomplete\n") || !strings.Contains(res.Stdout, "target_object_type\tnetwork\n") {
			t.Fatalf("operation finished while an interface remains:\n%s", res)
		}
		mustRun(t, r, 0, "instance", "delete", "web1")
		res = mustRun(t, r, 0, "cluster-operation", "show", "--wait", h.OpType, h.OpUUID, "--async", "block", "--timeout", "20s", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\tcomplete\n") {
			t.Fatalf("the operation never completed:\n%s", res)
		}
		res = mustRun(t, r, 0, "cluster-operation", "show", "--chain", h.OpUUID, "-o", "json", "--jq", ".[0].uuid")
		if strings.TrimSpace(res.Stdout) != h.OpUUID {
			t.Errorf("chain does not start with the operation: %s", res)
		}
		mustRun(t, r, cmdutil.ExitUsage, "cluster-operation", "show", h.OpUUID)
	})
}

// Against a 2024 sim network delete behaves as it always did: the network,
// waited for until deleted; cluster operations do not exist there.
func TestNetworkDeleteAgainstSim2024(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, r := startSim(t, cluster.Generation2024, nil)
		mustRun(t, r, 0, "network", "create", "net1", "10.1.0.0/24")
		if res := mustRun(t, r, 0, "network", "delete", "net1", "-o", "simple"); !strings.Contains(res.Stdout, "state\tdeleted\n") || !strings.Contains(res.Stdout, "name\tnet1\n") {
			t.Fatalf("2024 delete:\n%s", res)
		}
		res := mustRun(t, r, cmdutil.ExitFailure, "cluster-operation", "show", "net_op/0b1e7a34-0000-4000-8000-000000000001")
		if !strings.Contains(res.Stderr, "this server does not support cluster operations") || !strings.Contains(res.Stderr, "2026") {
			t.Errorf("2024 cluster-operation show:\n%s", res)
		}
	})
}

// Issue 34, item 8: an explicit --timeout that runs out exits 124, as it
// does for every other wait; network delete's cluster operation, still
// executing (an instance holds an interface), exited 0 under the default
// --async pause. Pause's own budget still gives up quietly.
func TestNetworkDeleteExplicitTimeoutExits124(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, r := startSim(t, cluster.Generation2026, nil)
		mustRun(t, r, 0, "network", "create", "net1", "10.1.0.0/24")
		mustRun(t, r, 0, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "-n", "net1")
		res := mustRun(t, r, cmdutil.ExitTimeout, "network", "delete", "net1", "--timeout", "1s", "-o", "simple")
		if !strings.Contains(res.Stderr, "did not complete") {
			t.Errorf("the timeout does not say what did not complete:\n%s", res)
		}
	})
}
