package network_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/cli/clitest"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

// The real DELETE /networks/{ref} answers 200 with the network, in
// delete-wait while interfaces remain (shakenfist da448b1a network.py).
func TestNetworkDeleteWaitsThroughDeleteWait(t *testing.T) {
	deleteWait := clitest.FakeReply{Status: 200, Body: clitest.ReadGolden(t, "network_delete_wait.json")}
	const get = "GET /networks/2f1e0d9c-1111-4222-8333-444455556601"
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"DELETE /networks/net1": deleteWait, get: deleteWait}
		start := time.Now()
		res := clitest.InMemory(fa).Run(t, "network", "delete", "net1", "--async", "block", "--timeout", "30s")
		if res.Code != cmdutil.ExitTimeout || time.Since(start) != 30*time.Second {
			t.Fatalf("block: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"DELETE /networks/net1": deleteWait, get: deleteWait}
		res := clitest.InMemory(fa).Run(t, "network", "delete", "net1", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") || !strings.Contains(res.Stderr, "network net1 is still delete-wait after 1m0s") {
			t.Fatalf("pause: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"DELETE /networks/net1": deleteWait, get: {Status: 404, Body: `{"error":"network not found","status":404}`}}
		res := clitest.InMemory(fa).Run(t, "network", "delete", "net1", "--async", "block", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") {
			t.Fatalf("gone: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"DELETE /networks/net1": deleteWait}
		res := clitest.InMemory(fa).Run(t, "network", "delete", "net1", "--async", "continue", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdelete-wait\n") || fa.Count("GET", "/networks/2f1e0d9c-1111-4222-8333-444455556601") != 0 {
			t.Fatalf("continue: %s", res)
		}
	})
	// Already deleted: 200 null.
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"DELETE /networks/net1": {Status: 200, Body: "null"}}
		res := clitest.InMemory(fa).Run(t, "network", "delete", "net1", "-o", "json")
		if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "network net1 was already deleted") {
			t.Fatalf("null: %s", res)
		}
	})
}
