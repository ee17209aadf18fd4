package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/internal/sfclienttest"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// The done-when, as a user types it: the real sf-client's
// `instance create` (client-python 6c25293c, the 2024 command line, which
// has no retry) succeeds through `shakectl wrap` against a simulator that
// refuses twice, the API URL coming from shakectl's configuration. (The
// same client failing on its own is proxy.TestRealSFClientCreateThroughWrap.)
func TestRealSFClientThroughShakectlWrap(t *testing.T) {
	sfc := sfclienttest.Find(t)
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.RetryAfter = 1 // seconds of test, not the contract's 15
	cfg.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu", Repeat: 2}}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // bounds a runaway client
	defer cancel()
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })

	// wrap gives its command this process's environment plus
	// SHAKENFIST_API_URL; env(1) adds sf-client's own settings (a fresh
	// HOME, its PYTHONPATH, namespace and key) without replacing that URL.
	argv := []string{"wrap", "--", "env"}
	for _, kv := range sfc.Env(t, "unused", "system", "demo") {
		if !strings.HasPrefix(kv, "SHAKENFIST_API_URL=") {
			argv = append(argv, kv)
		}
	}
	argv = append(argv, sfc.Argv("instance", "create", "web-1", "1", "1024", "-d", "8@debian:12")...)
	res := clitest.CmdRun{Url: sim.URL(), Ctx: ctx}.Run(t, argv...)
	if res.Code != 0 || !strings.Contains(res.Stdout, "web-1") {
		t.Fatalf("sf-client through shakectl wrap: %s", res)
	}
	if got := strings.Count(res.Stderr, "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s"); got != 2 {
		t.Errorf("%d retry lines on stderr, want 2:\n%s", got, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "2 refusals waited out, 0 refusals handed back") {
		t.Errorf("no summary on stderr:\n%s", res.Stderr)
	}
	if left := sim.ScriptRemaining(); left != 0 {
		t.Errorf("%d scripted refusals left, want 0", left)
	}
}
