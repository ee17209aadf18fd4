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
		fa := clitest.NewStubs(t) // no GET of the network: a poll fails the test
		fa.Reply("POST", "/networks", 200, `{"netblock":"10.0.0.0/24","name":"mynet","provide_dhcp":true,"provide_nat":true,"uuid":"2f1e0d9c-1111-4222-8333-4444555566ff","state":"initial","vxlan_id":99,"namespace":"ns1"}`)
		res := clitest.StubsInMemory(fa).Run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "continue", "-o", "simple")
		if res.Code != 0 || !strings.Contains(res.Stdout, "state\tinitial\n") || fa.Count("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff") != 0 {
			t.Fatalf("continue: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		fa.Reply("POST", "/networks", 200, `{"netblock":"10.0.0.0/24","name":"mynet","provide_dhcp":true,"provide_nat":true,"uuid":"2f1e0d9c-1111-4222-8333-4444555566ff","state":"initial","vxlan_id":99,"namespace":"ns1"}`)
		fa.Reply("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff", 200,
			strings.Replace(clitest.ReadGolden(t, "network_initial.json"), `"initial"`, `"error"`, 1))
		res := clitest.StubsInMemory(fa).Run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "block")
		if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "network net1 is in state error") || !strings.Contains(res.Stderr, "shakectl network show net1") {
			t.Fatalf("error state: %s", res)
		}
	})
}
