package network_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestNetworkListGolden(t *testing.T) {
	clitest.GoldenFormats(t, clitest.NewFakeAPI(t), "network_list", "network", "list")
}

func TestNetworkShowGolden(t *testing.T) {
	clitest.GoldenFormats(t, clitest.NewFakeAPI(t), "network_show", "network", "show", "net1")
}

func TestNetworkCreate(t *testing.T) {
	fa := clitest.NewFakeAPI(t)
	res := clitest.Against(fa).Run(t, "network", "create", "net9", "10.9.0.0/16", "--nat=false", "-o", "json")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastRequest("POST", "/networks").Body; got != `{"netblock":"10.9.0.0/16","name":"net9","provide_dhcp":true,"provide_nat":false}` {
		t.Errorf("body %s", got)
	}
	var n map[string]any
	if json.Unmarshal([]byte(res.Stdout), &n) != nil || n["name"] != "net9" {
		t.Errorf("stdout %s", res.Stdout)
	}
}

func TestNetworkCreateBadNetblock(t *testing.T) {
	for netblock, want := range map[string]string{
		"10.0.0.0":    "is not an address block in CIDR notation",
		"10.0.0.1/24": "has host bits set; did you mean 10.0.0.0/24?",
		"banana":      "is not an address block",
	} {
		fa := clitest.NewFakeAPI(t)
		res := clitest.Against(fa).Run(t, "network", "create", "n", netblock)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, want) {
			t.Errorf("%s: %s", netblock, res)
		}
		if fa.Count("POST", "/networks") != 0 {
			t.Errorf("%s: a create was sent", netblock)
		}
	}
}

func TestNetworkDelete(t *testing.T) {
	fa := clitest.NewFakeAPI(t)
	res := clitest.Against(fa).Run(t, "network", "delete", "net1", "-o", "simple")
	if res.Code != 0 || !strings.Contains(res.Stdout, "state\tdeleted\n") {
		t.Fatal(res)
	}
}
