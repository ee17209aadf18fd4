package network_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The real DELETE /networks/{ref} answers 200 with the network, in
// delete-wait while interfaces remain (shakenfist da448b1a network.py).
func TestNetworkDeleteWaitsThroughDeleteWait(t *testing.T) {
	deleteWait := clitest.ReadGolden(t, "network_delete_wait.json")
	const get = "/networks/2f1e0d9c-1111-4222-8333-444455556601"
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, deleteWait)
		fa.Reply("GET", get, 200, deleteWait)
		start := time.Now()
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--async", "block", "--timeout", "30s")
		if res.Code != cmdutil.ExitTimeout || time.Since(start) != 30*time.Second {
			t.Fatalf("block: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, deleteWait)
		fa.Reply("GET", get, 200, deleteWait)
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") || !strings.Contains(res.Stderr, "network net1 did not reach state deleted within 1m0s (last state: delete-wait); \"shakectl network show net1\" shows it\n") {
			t.Fatalf("pause: %s", res)
		}
	})
	// Issue 28, item 14: an explicit --timeout that runs out exits 124
	// under the default --async pause too, so a script knows the network
	// still exists.
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, deleteWait)
		fa.Reply("GET", get, 200, deleteWait)
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--timeout", "3s")
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "did not reach state deleted within 3s") {
			t.Fatalf("pause with --timeout: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, deleteWait)
		fa.Reply("GET", get, 404, `{"error":"network not found","status":404}`)
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--async", "block", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") {
			t.Fatalf("gone: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, deleteWait)
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--async", "continue", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") || fa.Count("GET", "/networks/2f1e0d9c-1111-4222-8333-444455556601") != 0 {
			t.Fatalf("continue: %s", res)
		}
	})
	// Already deleted: 200 null.
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 200, "null")
		res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "json")
		if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "network net1 was already deleted") {
			t.Fatalf("null: %s", res)
		}
	})
}

// A 2026 server answers DELETE /networks/{ref} with 202 and a cluster
// operation handle; network delete follows the operation and prints it
// (recorded answers: client/testdata/sf2026, from client-python 74d6e129
// test_delete_network and test_delete_network_failure_raises).
func TestNetworkDelete2026FollowsTheOperation(t *testing.T) {
	handle := clitest.ReadGolden(t, "sf2026/network_delete_202.json")
	const op = "/clusteroperations/net_op/op-uuid"
	complete := clitest.ReadGolden(t, "sf2026/clusteroperation_complete.json")
	failed := clitest.ReadGolden(t, "sf2026/clusteroperation_error.json")
	executing := `{"operation_type": "net_op", "uuid": "op-uuid", "state": "executing", "tasks": ["network_delete"]}`
	// stubs answers the delete with the operation's handle, the operation
	// with opState, and nothing else.
	stubs := func(t *testing.T, opState string) *clitest.Stubs {
		fa := clitest.NewStubs(t)
		fa.Reply("DELETE", "/networks/net1", 202, handle)
		if opState != "" {
			fa.Reply("GET", op, 200, opState)
		}
		return fa
	}

	t.Run("complete", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := stubs(t, complete)
			res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "simple")
			if res.Code != 0 || !strings.Contains(res.Stdout, "state\tcomplete\n") || !strings.Contains(res.Stdout, "operation_type\tnet_op\n") {
				t.Fatalf("%s", res)
			}
			if fa.Count("GET", "/networks/net1") != 0 {
				t.Errorf("polled the network instead of its operation")
			}
			res = clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "json")
			var got map[string]any
			if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["state"] != "complete" || got["uuid"] != "op-uuid" || res.Stderr != "" {
				t.Fatalf("-o json does not print the operation: %s", res)
			}
		})
	})
	t.Run("error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := stubs(t, failed)
			res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "simple")
			if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stdout, "state\terror\n") ||
				!strings.Contains(res.Stderr, "cluster operation net_op/op-uuid ended in state error") ||
				!strings.Contains(res.Stderr, "shakectl cluster-operation show net_op/op-uuid") {
				t.Fatalf("%s", res)
			}
			res = clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "json")
			var got map[string]any
			if res.Code != cmdutil.ExitFailure || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["state"] != "error" {
				t.Fatalf("-o json: %s", res)
			}
			var e map[string]any
			if json.Unmarshal([]byte(res.Stderr), &e) != nil || e["exit_code"] != float64(cmdutil.ExitFailure) || !strings.Contains(e["error"].(string), "ended in state error") {
				t.Fatalf("-o json stderr is not the error object: %q", res.Stderr)
			}
		})
	})
	t.Run("continue", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := stubs(t, "") // continue must not ask for the operation
			res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--async", "continue", "-o", "json")
			var got map[string]any
			if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["op_type"] != "net_op" || got["op_uuid"] != "op-uuid" {
				t.Fatalf("continue does not print the handle: %s", res)
			}
			if fa.Count("GET", "/clusteroperations/net_op/op-uuid") != 0 {
				t.Errorf("continue waited")
			}
			var note map[string]any
			if json.Unmarshal([]byte(res.Stderr), &note) != nil || note["event"] != "operation_started" {
				t.Errorf("stderr under -o json: %q", res.Stderr)
			}
		})
	})
	t.Run("pause gives up quietly", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := stubs(t, executing)
			start := time.Now()
			res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "-o", "simple")
			if res.Code != 0 || time.Since(start) != time.Minute || !strings.Contains(res.Stdout, "state\texecuting\n") ||
				!strings.Contains(res.Stderr, "cluster operation net_op/op-uuid (deleting network net1) did not complete within 1m0s (last state: executing); \"shakectl cluster-operation show --wait net_op/op-uuid\" waits for it\n") {
				t.Fatalf("%s (after %s)", res, time.Since(start))
			}
		})
	})
	t.Run("block times out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fa := stubs(t, executing)
			res := clitest.StubsInMemory(fa).Run(t, "network", "delete", "net1", "--async", "block", "--timeout", "30s")
			if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "did not complete within 30s (last state: executing)") {
				t.Fatalf("%s", res)
			}
		})
	})
}
