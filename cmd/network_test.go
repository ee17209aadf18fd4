package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNetworkListGolden(t *testing.T) {
	goldenFormats(t, newFakeAPI(t), "network_list", "network", "list")
}

func TestNetworkShowGolden(t *testing.T) {
	goldenFormats(t, newFakeAPI(t), "network_show", "network", "show", "net1")
}

func TestNetworkCreate(t *testing.T) {
	fa := newFakeAPI(t)
	res := against(fa).run(t, "network", "create", "net9", "10.9.0.0/16", "--nat=false", "-o", "json")
	if res.code != 0 {
		t.Fatal(res)
	}
	if got := fa.lastRequest("POST", "/networks").Body; got != `{"netblock":"10.9.0.0/16","name":"net9","provide_dhcp":true,"provide_nat":false}` {
		t.Errorf("body %s", got)
	}
	var n map[string]any
	if json.Unmarshal([]byte(res.stdout), &n) != nil || n["name"] != "net9" {
		t.Errorf("stdout %s", res.stdout)
	}
}

func TestNetworkCreateBadNetblock(t *testing.T) {
	for netblock, want := range map[string]string{
		"10.0.0.0":    "is not an address block in CIDR notation",
		"10.0.0.1/24": "has host bits set; did you mean 10.0.0.0/24?",
		"banana":      "is not an address block",
	} {
		fa := newFakeAPI(t)
		res := against(fa).run(t, "network", "create", "n", netblock)
		if res.code != ExitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: %s", netblock, res)
		}
		if fa.count("POST", "/networks") != 0 {
			t.Errorf("%s: a create was sent", netblock)
		}
	}
}

func TestNetworkDelete(t *testing.T) {
	fa := newFakeAPI(t)
	res := against(fa).run(t, "network", "delete", "net1", "-o", "simple")
	if res.code != 0 || !strings.Contains(res.stdout, "state\tdeleted\n") {
		t.Fatal(res)
	}
}
