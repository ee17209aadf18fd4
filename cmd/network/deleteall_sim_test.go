package network_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

type deleteAllAnswer struct {
	Deleted    []string
	Operations []struct {
		UUID  string `json:"uuid"`
		OpUID string `json:"op_uuid"`
		State string `json:"state"`
	}
}

// Against a 2026 sim whose network node fails one delete
// (--network-op-errors 1), network delete-all follows every operation (as
// network delete follows its one), prints them all, and fails with the
// failed one's error; the network it failed on is still there, and a
// second delete-all completes. Under --async continue it prints the
// handles and does not wait.
func TestNetworkDeleteAllAgainstSim2026FollowsEachOperation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, r := startSim(t, cluster.Generation2026, func(c *cluster.Config) { c.NetworkOpErrors = 1 })
		mustRun(t, r, 0, "network", "create", "net1", "10.1.0.0/24")
		mustRun(t, r, 0, "network", "create", "net2", "10.2.0.0/24")
		res := mustRun(t, r, cmdutil.ExitFailure, "network", "delete-all", "--yes", "--async", "block", "--timeout", "20s", "-o", "json")
		var got deleteAllAnswer
		if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || len(got.Deleted) != 2 || len(got.Operations) != 2 {
			t.Fatalf("%v\n%s", err, res)
		}
		states := map[string]int{}
		for _, op := range got.Operations {
			states[op.State]++
		}
		if states["error"] != 1 || states["complete"] != 1 {
			t.Errorf("operation states %v, want one error and one complete\n%s", states, res)
		}
		if !strings.Contains(res.Stderr, "network delete failed on the network node") {
			t.Errorf("the failed operation's error is not reported:\n%s", res)
		}
		if res := mustRun(t, r, 0, "network", "list", "-o", "json", "--jq", "[.[] | select(.state == \"created\")] | length"); res.Stdout != "1\n" {
			t.Errorf("after one failed delete, created networks: %s", res)
		}
		res = mustRun(t, r, 0, "network", "delete-all", "--yes", "-o", "simple")
		if !strings.Contains(res.Stdout, " complete") || strings.Contains(res.Stdout, " error") {
			t.Errorf("second delete-all:\n%s", res)
		}

		mustRun(t, r, 0, "network", "create", "net3", "10.3.0.0/24")
		res = mustRun(t, r, 0, "network", "delete-all", "--yes", "--async", "continue", "-o", "json")
		got = deleteAllAnswer{}
		if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || len(got.Operations) != 1 || got.Operations[0].OpUID == "" || got.Operations[0].State != "" {
			t.Fatalf("--async continue should print the handle: %v\n%s", err, res)
		}
	})
}
