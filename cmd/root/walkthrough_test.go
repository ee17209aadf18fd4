package root_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The README's walk-through, against a fake that speaks the real shapes:
// a network that is initial until its second poll, a create refused 406
// until then, power actions answered null, a 409 for rebooting a
// powered-off instance, deletes answered with the view as it was.
func TestREADMEWalkThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewFakeAPI(t)
		r := clitest.InMemory(fa)
		step := func(want int, args ...string) clitest.RunResult {
			t.Helper()
			res := r.Run(t, args...)
			if res.Code != want {
				t.Fatalf("%v: exit %d, want %d\n%s", args, res.Code, want, res)
			}
			return res
		}
		res := step(0, "network", "create", "mynet", "10.0.0.0/24", "-o", "simple")
		if !strings.Contains(res.Stdout, "state\tcreated\n") || fa.Count("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff") != 2 {
			t.Fatalf("network create did not wait for created:\n%s", res)
		}
		fa.CreateReplies = []clitest.FakeReply{{Status: 406, Body: `{"error": "network mynet is not ready (initial)", "status": 406}`}}
		step(cmdutil.ExitFailure, "instance", "create", "web9", "1", "1024", "-d", "8@debian:12", "-n", "mynet", "--async", "continue")
		if fa.Count("POST", "/instances") != 1 {
			// --async continue: no time to repeat the 406.
			t.Fatalf("continue repeated the 406")
		}
		fa.CreateReplies = []clitest.FakeReply{{Status: 406, Body: `{"error": "network mynet is not ready (initial)", "status": 406}`}}
		fa.CreateState = "created"
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
		fa.Override = map[string]clitest.FakeReply{"POST /instances/web1/rebootsoft": {Status: 409, Body: `{"error": "Invalid lifecycle state: you cannot reboot a powered off instance", "status": 409}`}}
		step(cmdutil.ExitFailure, "instance", "reboot", "web1")
		fa.Override = nil
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
