package instance_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// patched is raw with the fields of set replaced.
func patched(t *testing.T, raw json.RawMessage, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 40, item 12: instance await on a powered-off instance waited out
// --timeout (exit 124) although its own message said "powered off". An
// instance that is created but powered off, paused or crashed cannot get a
// ready agent unless someone acts: the wait ends at the first answer, exit
// 1, saying so and what to do. The views are the fixture web1 (created,
// with the sf-agent side channel) with the power state and agent state a
// 2024 server sets (shakenfist da448b1a instance.py power_off/pause,
// constants.py AGENT_INSTANCE_OFF, AGENT_INSTANCE_PAUSED).
func TestAwaitEndsAtOnceWhenPowerStopsTheAgent(t *testing.T) {
	for _, tc := range []struct {
		power, agent, why string
	}{
		{"off", "not ready (instance powered off)", `it is powered off (power_state off, agent "not ready (instance powered off)"): "shakectl instance poweron web1" first`},
		{"paused", "not ready (instance paused)", `it is paused (power_state paused, agent "not ready (instance paused)"): "shakectl instance unpause web1" first`},
		{"crashed", "not ready (unresponsive)", `it has crashed (power_state crashed): "shakectl instance reboot web1 --hard" or poweron it first`},
	} {
		t.Run(tc.power, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				view := patched(t, clitest.FixtureInstances[0], map[string]any{"power_state": tc.power, "agent_state": tc.agent, "side_channels": []string{"sf-agent"}})
				fa := clitest.NewStubs(t)
				fa.Reply("GET", "/instances/web1", 200, string(view))
				start := time.Now()
				res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "web1", "--timeout", "10m")
				want := "error: instance web1 will never reach agent ready: " + tc.why + "\n"
				if res.Code != cmdutil.ExitFailure || !strings.HasPrefix(res.Stderr, want) {
					t.Errorf("%s\nwant exit 1, stderr starting %q", res, want)
				}
				if waited := time.Since(start); waited > 0 || fa.Count("GET", "/instances/web1") != 1 {
					t.Errorf("waited %s, %d polls: want the first answer to end it", waited, fa.Count("GET", "/instances/web1"))
				}
			})
		})
	}
	// Powered on and not yet ready: the wait goes on until it is.
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		booting := patched(t, clitest.FixtureInstances[0], map[string]any{"power_state": "on", "agent_state": "not ready (no contact)", "side_channels": []string{"sf-agent"}})
		ready := patched(t, clitest.FixtureInstances[0], map[string]any{"power_state": "on", "agent_state": "ready", "side_channels": []string{"sf-agent"}})
		fa.Reply("GET", "/instances/web1", 200, string(booting))
		fa.InTurn("GET", "/instances/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01", httpstub.String(200, string(booting)), httpstub.String(200, string(ready)))
		if res := clitest.StubsInMemory(fa).Run(t, "instance", "await", "web1", "--timeout", "10m"); res.Code != 0 {
			t.Error(res)
		}
	})
}
