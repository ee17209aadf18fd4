package instance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// shakenfist da448b1a InstanceInterfacesEndpoint.post answers the new
// interface (instance_interface_create_example, SOURCES.md).
func TestInstanceAddInterfaceGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	fa.Reply("POST", "/instances/web1/interfaces", 200, clitest.ReadGolden(t, "sf2024/interface_created.json"))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(fa), "instance_add_interface", "instance", "add-interface", "web1", "-f", "net1@10.0.0.47")
	if got := fa.LastBody("POST", "/instances/web1/interfaces"); got != `{"network":{"network_uuid":"net1","address":"10.0.0.47","float":true}}` {
		t.Errorf("-f body = %s", got)
	}
	// sf-client's three spellings of the interface, each sent as the
	// networkspec the server reads.
	for _, c := range []struct {
		args []string
		body string
	}{
		{[]string{"-n", "net1"}, `{"network":{"network_uuid":"net1"}}`},
		{[]string{"--network", "net1@10.0.0.9"}, `{"network":{"network_uuid":"net1","address":"10.0.0.9"}}`},
		{[]string{"-N", "network_uuid=net1,model=e1000,macaddress=02:00:00:00:00:01,float=True"}, `{"network":{"network_uuid":"net1","macaddress":"02:00:00:00:00:01","model":"e1000","float":true}}`},
	} {
		res := clitest.AgainstStubs(fa).Run(t, append([]string{"instance", "add-interface", "web1", "-o", "json"}, c.args...)...)
		var got map[string]any
		if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["uuid"] != "8e7b2f39-c652-4ec2-88ff-2791b503fc65" {
			t.Fatalf("%v: %s", c.args, res)
		}
		if body := fa.LastBody("POST", "/instances/web1/interfaces"); body != c.body {
			t.Errorf("%v: body = %s, want %s", c.args, body, c.body)
		}
	}
	// A malformed spec is the user's mistake, refused before sending.
	before := fa.Count("POST", "/instances/web1/interfaces")
	for _, args := range [][]string{{"-n", "net1@nonsense"}, {"-N", "model=virtio"}, {"-N", "network_uuid=net1,float=maybe"}} {
		res := clitest.AgainstStubs(fa).Run(t, append([]string{"instance", "add-interface", "web1"}, args...)...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, args[0]) {
			t.Errorf("%v: %s", args, res)
		}
	}
	if n := fa.Count("POST", "/instances/web1/interfaces"); n != before {
		t.Errorf("%d requests sent for malformed specs", n-before)
	}
}

// The server's refusal of a failed instance (406) is not the user's
// mistake and not a missing thing: exit 1 with the server's words, after
// one request (the state is final: waiting, as for a network not ready,
// cannot help).
func TestInstanceAddInterfaceRefused(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	fa.Reply("POST", "/instances/web1/interfaces", 406, `{"error": "instance in invalid state for hot plug", "status": 406}`)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "add-interface", "web1", "-n", "net1")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "instance in invalid state for hot plug") {
		t.Fatal(res)
	}
	if n := fa.Count("POST", "/instances/web1/interfaces"); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
