package root_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// The walk-through of the manual's cloud page (docs/cloud.md), against answers in the real server's shapes
// (client/testdata, shakenfist da448b1a; the events are the recorded
// sf2024 example) in the order a session gets them: a network that
// is initial until its second poll, a create refused 406 until then,
// power actions answered null, a 409 for rebooting a powered-off
// instance, deletes answered with the view as it was. The same session
// against the simulator is TestCloudWalkThroughAgainstSimCluster.
func TestCloudWalkThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		network := clitest.ReadGolden(t, "network_initial.json")
		const networkPath = "/networks/2f1e0d9c-1111-4222-8333-444455556601"
		instance := clitest.ReadGolden(t, "instance_created.json")
		notReady := httpstub.Error(406, "network mynet is not ready (initial)")

		fa := clitest.NewStubs(t)
		fa.Reply("POST", "/networks", 200, network)
		// Two polls while the network node deploys it, one after its delete.
		fa.InTurn("GET", networkPath, clitest.InStates(network, "initial", "created", "deleted")...)
		// A create while the network is initial (--async continue: not
		// repeated), then one repeated once before it is accepted.
		fa.InTurn("POST", "/instances", notReady, notReady, httpstub.String(200, instance))
		fa.Reply("POST", "/instances/web1/poweroff", 200, "null")
		fa.Reply("POST", "/instances/web1/rebootsoft", 409, `{"error": "Invalid lifecycle state: you cannot reboot a powered off instance", "status": 409}`)
		fa.Reply("POST", "/instances/web1/poweron", 200, "null")
		fa.Reply("POST", "/instances/web1/reboothard", 200, "null")
		fa.ReplyRecorded(t, "GET", "/instances/web1/events", 200, "sf2024/instance_events.json")
		fa.Reply("DELETE", "/instances/web1", 200, instance)
		fa.InTurn("GET", "/instances/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01", clitest.InStates(instance, "deleted")...)
		fa.Reply("DELETE", "/networks/mynet", 200, clitest.ReadGolden(t, "network_created.json"))

		r := clitest.StubsInMemory(fa)
		step := func(want int, args ...string) clitest.RunResult {
			t.Helper()
			res := r.Run(t, args...)
			if res.Code != want {
				t.Fatalf("%v: exit %d, want %d\n%s", args, res.Code, want, res)
			}
			return res
		}
		res := step(0, "network", "create", "mynet", "10.0.0.0/24", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\tcreated\n") || fa.Count("GET", networkPath) != 2 {
			t.Fatalf("network create did not wait for created:\n%s", res)
		}
		step(cmdutil.ExitFailure, "instance", "create", "web9", "1", "1024", "-d", "8@debian:12", "-n", "mynet", "--async", "continue")
		if fa.Count("POST", "/instances") != 1 {
			// --async continue: no time to repeat the 406.
			t.Fatalf("continue repeated the 406")
		}
		res = step(0, "instance", "create", "web9", "1", "1024", "-d", "8@debian:12", "-n", "mynet")
		if !strings.Contains(res.Stderr, "network mynet is not ready (initial); retrying in 1s (") {
			t.Errorf("the 406 repeat is not visible on stderr: %q", res.Stderr)
		}
		if fa.Count("POST", "/instances") != 3 {
			t.Fatalf("the 406 was not repeated: %d creates", fa.Count("POST", "/instances"))
		}
		if res := step(0, "instance", "poweroff", "web1"); res.Stdout != "" {
			t.Errorf("poweroff printed %q", res.Stdout)
		}
		step(cmdutil.ExitFailure, "instance", "reboot", "web1")
		step(0, "instance", "poweron", "web1")
		step(0, "instance", "reboot", "web1", "--hard")
		step(0, "instance", "events", "web1")
		res = step(0, "instance", "delete", "web1", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\tdeleted\n") {
			t.Errorf("instance delete: %s", res)
		}
		res = step(0, "network", "delete", "mynet", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\tdeleted\n") {
			t.Errorf("network delete: %s", res)
		}
	})
}
