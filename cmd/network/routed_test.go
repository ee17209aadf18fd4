package network_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// add-routed and delete-routed against the 2024 handlers' answers
// (network.py @da448b1a; the 2026 handlers answer the same): the routed
// address is a bare JSON string (client/testdata/sf2024/route_address.json),
// printed with the network; delete-routed's 200 null prints nothing; an
// address nothing routes is 404, exit 5; another network's is 403.
func TestNetworkRoutedRecorded(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	s.ReplyRecorded(t, "POST", "/networks/net1/route", 200, "sf2024/route_address.json")
	s.Reply("DELETE", "/networks/net1/route/192.168.20.7", 200, "null\n")
	r := clitest.AgainstStubs(s)
	if res := r.Run(t, "network", "add-routed", "net1", "-o", "simple"); res.Code != 0 || res.Stdout != "network\tnet1\naddress\t192.168.20.7\n" {
		t.Fatalf("%q\n%s", res.Stdout, res)
	}
	if res := r.Run(t, "network", "delete-routed", "net1", "192.168.20.7"); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
	s = clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	s.Reply("DELETE", "/networks/net1/route/192.168.20.8", 404, `{"error": "address not routed", "status": 404}`)
	s.Reply("DELETE", "/networks/net1/route/192.168.20.9", 403, `{"error": "address not routed by this network", "status": 403}`)
	r = clitest.AgainstStubs(s)
	if res := r.Run(t, "network", "delete-routed", "net1", "192.168.20.8"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "address not routed") {
		t.Fatal(res)
	}
	if res := r.Run(t, "network", "delete-routed", "net1", "192.168.20.9"); res.Code == 0 || !strings.Contains(res.Stderr, "address not routed by this network") {
		t.Fatal(res)
	}
}
