package network_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

func TestNetworkListGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/networks", 200, string(clitest.JoinRaw(clitest.FixtureNetworks)))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "network_list", "network", "list")
}

func TestNetworkShowGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/networks/net1", 200, string(clitest.FixtureNetworks[0]))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "network_show", "network", "show", "net1")
}

// The create waits for the deploy on synctest's clock: the poll interval
// between the two looks costs no wall time.
func TestNetworkCreate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		// NetworksEndpoint.post answers the new network, initial.
		fa.Reply("POST", "/networks", 200, `{"uuid":"2f1e0d9c-1111-4222-8333-4444555566ff","name":"net9","namespace":"ns1","netblock":"10.9.0.0/16","provide_dhcp":true,"provide_nat":false,"state":"initial","vxlan_id":99}`)
		// The network node deploys it: created on the second look.
		created := `{"uuid":"2f1e0d9c-1111-4222-8333-4444555566ff","name":"net9","namespace":"ns1","netblock":"10.9.0.0/16","provide_dhcp":true,"provide_nat":false,"state":"created","vxlan_id":99}`
		fa.Sequence(clitest.Route("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff"),
			httpstub.String(200, strings.Replace(created, `"created"`, `"initial"`, 1)), httpstub.String(200, created))
		res := clitest.StubsInMemory(fa).Run(t, "network", "create", "net9", "10.9.0.0/16", "--nat=false", "-o", "json")
		if res.Code != 0 {
			t.Fatal(res)
		}
		if got := fa.LastBody("POST", "/networks"); got != `{"netblock":"10.9.0.0/16","name":"net9","provide_dhcp":true,"provide_nat":false}` {
			t.Errorf("body %s", got)
		}
		var n map[string]any
		if json.Unmarshal([]byte(res.Stdout), &n) != nil || n["name"] != "net9" {
			t.Errorf("stdout %s", res.Stdout)
		}
	})
}

func TestNetworkCreateBadNetblock(t *testing.T) {
	for netblock, want := range map[string]string{
		"10.0.0.0":    "is not an address block in CIDR notation",
		"10.0.0.1/24": "has host bits set; did you mean 10.0.0.0/24?",
		"banana":      "is not an address block",
	} {
		fa := clitest.NewStubs(t)
		res := clitest.AgainstStubs(fa).Run(t, "network", "create", "n", netblock)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, want) {
			t.Errorf("%s: %s", netblock, res)
		}
		if fa.Count("POST", "/networks") != 0 {
			t.Errorf("%s: a create was sent", netblock)
		}
	}
}

func TestNetworkDelete(t *testing.T) {
	fa := clitest.NewStubs(t)
	// The 2024 NetworkEndpoint.delete answers the network as it was, then
	// deleted (the state this fake cloud reported).
	deleted := strings.Replace(string(clitest.FixtureNetworks[0]), `"state":"created"`, `"state":"deleted"`, 1)
	fa.Reply("GET", "/networks/net1", 200, string(clitest.FixtureNetworks[0])).Optional()
	fa.Reply("DELETE", "/networks/net1", 200, deleted)
	res := clitest.AgainstStubs(fa).Run(t, "network", "delete", "net1", "-o", "simple")
	if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdeleted\n") {
		t.Fatal(res)
	}
}
