package network_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Answers recorded from shakenfist da448b1a external_api/network.py
// (client/testdata/sf2024, SOURCES.md) and the 2026 delete-all answer of
// client-python 74d6e129's tests (sf2026).

func TestNetworkEventsGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/networks/net1/events", 200, clitest.ReadGolden(t, "sf2024/network_events.json"))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "network_events", "network", "events", "net1")
	if res := clitest.AgainstStubs(fa).Run(t, "network", "events", "net1", "-t", "usage", "-l", "5"); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("GET", "/networks/net1/events"); got != `{"event_type":"usage","limit":5}` {
		t.Errorf("body = %s", got)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "network", "events", "net1", "--type", "gossip"); res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
}

func TestNetworkInstancesGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/networks/net1/interfaces", 200, clitest.ReadGolden(t, "sf2024/interfaces.json"))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "network_instances", "network", "instances", "net1")
	res := clitest.AgainstStubs(fa).Run(t, "network", "instances", "net1", "-o", "columns=INSTANCE,IPV4")
	if res.Code != 0 || res.Stdout != "INSTANCE                              IPV4\nc0d52a77-0f8a-4f19-bec7-0c05efb03cb4  10.0.0.47\n" {
		t.Fatalf("%q", res)
	}
}

func TestNetworkAddressesGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	// The recorded 2024 root page lists list-addresses.
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	// The reservation shape of shakenfist da448b1a ipam.py reserve:
	// address, user ([object type, uuid]), when, type, comment.
	fa.Reply("GET", "/networks/net1/addresses", 200, `[
		{"address": "10.0.0.1", "user": ["network", "2f1e0d9c-1111-4222-8333-444455556601"], "when": 1685229000.5, "type": "gateway", "comment": "router"},
		{"address": "10.0.0.5", "user": ["instance", "6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"], "when": 1685229103.25, "type": "instance", "comment": ""}]`)
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "network_addresses", "network", "addresses", "net1")
}

func TestNetworkPing(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/networks/net1/ping/10.0.0.187", 200, clitest.ReadGolden(t, "sf2024/network_ping.json"))
	res := clitest.AgainstStubs(fa).Run(t, "network", "ping", "net1", "10.0.0.187")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "PING 10.0.0.187 (10.0.0.187) 56(84) bytes of data.\n") ||
		!strings.Contains(res.Stdout, "10 packets transmitted, 10 received, 0% packet loss") || res.Stderr != "" {
		t.Fatal(res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "network", "ping", "net1", "10.0.0.187", "--jq", ".stdout | length"); res.Code != 0 || res.Stdout != "16\n" {
		t.Fatal(res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "network", "ping", "net1", "10.0.0.187", "-o", "columns=STDOUT"); res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
	// Not an address: refused before anything is sent.
	if res := clitest.AgainstStubs(fa).Run(t, "network", "ping", "net1", "10.0.0.187/../../x"); res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
}

func TestNetworkMetadata(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("PUT", "/networks/net1/metadata/owner", 200, "null")
	fa.Reply("DELETE", "/networks/net1/metadata/owner", 200, "null")
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "network", "set-metadata", "net1", "owner", "team-a"); res.Code != 0 || fa.LastBody("PUT", "/networks/net1/metadata/owner") != `{"value":"team-a"}` {
		t.Fatal(res)
	}
	if res := r.Run(t, "network", "delete-metadata", "net1", "owner"); res.Code != 0 {
		t.Fatal(res)
	}
}

func TestNetworkDeleteAll(t *testing.T) {
	// 2024: some networks still in use come back as a 403 listing them,
	// which is not a refused key: exit 1, saying which.
	fa := clitest.NewStubs(t)
	fa.Canned("DELETE", "/networks", clitest.RecordedRefusal(t, "sf2024/refusals.json", "403 delete-all with networks in use"))
	res := clitest.AgainstStubs(fa).Run(t, "network", "delete-all", "--yes")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stdout, "1bed1aa5-10f0-45cc-ae58-4a94761bef59") ||
		!strings.Contains(res.Stderr, "still in use") || !strings.Contains(res.Stderr, "2f1e0d9c-1111-4222-8333-444455556601") {
		t.Fatal(res)
	}
	if got := fa.LastBody("DELETE", "/networks"); got != `{"confirm":true,"namespace":"ns1","clean_wait":false}` {
		t.Errorf("body = %s", got)
	}
	// Recorded from a real node: its one network held a running
	// instance's interface, so nothing was deleted.
	fa = clitest.NewStubs(t)
	fa.Canned("DELETE", "/networks", clitest.RecordedRefusal(t, "sf2024/refusals.json", "403 delete-all with every network in use"))
	res = clitest.AgainstStubs(fa).Run(t, "network", "delete-all", "--yes")
	if res.Code != cmdutil.ExitFailure || res.Stdout != "networks\t\nnetworks_in_use\t43324040-0215-4f52-be23-400996b097eb\n" ||
		!strings.Contains(res.Stderr, "still in use") || !strings.Contains(res.Stderr, "43324040-0215-4f52-be23-400996b097eb") {
		t.Fatal(res)
	}
	// 2026: one cluster operation per network.
	fa = clitest.NewStubs(t)
	fa.Reply("DELETE", "/networks", 202, clitest.ReadGolden(t, "sf2026/networks_delete_all_202.json"))
	// --async continue: the handles, not followed.
	res = clitest.AgainstStubs(fa).Run(t, "network", "delete-all", "--yes", "--wait-for-interfaces", "--async", "continue", "-o", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"op_uuid": "op-b"`) || fa.Count("GET", "/clusteroperations/net_op/op-a") != 0 {
		t.Fatal(res)
	}
	// Otherwise each operation is followed (client-python 74d6e129's
	// recorded answers); one that ends in error fails the command, after
	// both are shown.
	fa.Reply("GET", "/clusteroperations/net_op/op-a", 200, clitest.ReadGolden(t, "sf2026/clusteroperation_complete.json"))
	fa.Reply("GET", "/clusteroperations/net_op/op-b", 200, clitest.ReadGolden(t, "sf2026/clusteroperation_error.json"))
	res = clitest.AgainstStubs(fa).Run(t, "network", "delete-all", "--yes", "-o", "simple")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stdout, "net_op/op-a net-a complete; net_op/op-b net-b error") ||
		fa.Count("GET", "/clusteroperations/net_op/op-b") != 1 {
		t.Fatal(res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "network", "delete-all"); res.Code != cmdutil.ExitUsage || fa.Count("DELETE", "/networks") != 2 {
		t.Fatal(res)
	}
}

func TestNetworkCreateDNS(t *testing.T) {
	for _, tc := range []struct {
		root string
		args []string
		want string // in the body, or "" for refused
		code int
	}{
		{"sf2024/root.html", []string{"--dns"}, `"provide_dns":true`, 0},
		{"sf2024/root.html", []string{"--dns", "--no-dns"}, "", cmdutil.ExitUsage},
		{"sf2024/root.html", []string{"--no-dhcp", "--no-nat"}, `"provide_dhcp":false,"provide_nat":false`, 0},
	} {
		fa := clitest.NewStubs(t)
		fa.Root(clitest.ReadGolden(t, tc.root))
		if tc.code == 0 {
			// The network as the server answers a create: initial.
			fa.Reply("POST", "/networks", 200, string(clitest.FixtureNetworks[0]))
		}
		res := clitest.AgainstStubs(fa).Run(t, append([]string{"network", "create", "dns1", "10.9.0.0/24", "--async", "continue"}, tc.args...)...)
		if res.Code != tc.code {
			t.Fatalf("%q: %s", tc.args, res)
		}
		if tc.want != "" && !strings.Contains(fa.LastBody("POST", "/networks"), tc.want) {
			t.Errorf("%q: body %s", tc.args, fa.LastBody("POST", "/networks"))
		}
	}
}
