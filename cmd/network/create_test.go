package network_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestNetworkCreateWaitsPerAsync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		res := clitest.InMemory(fa).Run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "continue", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tinitial\n") || fa.Count("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff") != 0 {
			t.Fatalf("continue: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		fa.Override = map[string]clitest.FakeReply{"GET /networks/2f1e0d9c-1111-4222-8333-4444555566ff": {Status: 200,
			Body: strings.Replace(clitest.ReadGolden(t, "network_initial.json"), `"initial"`, `"error"`, 1)}}
		res := clitest.InMemory(fa).Run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "block")
		if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "network net1 is in state error") || !strings.Contains(res.Stderr, "shakectl network show net1") {
			t.Fatalf("error state: %s", res)
		}
	})
}
