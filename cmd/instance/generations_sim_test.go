package instance_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// startGenSim makes sim cluster of one generation in memory; the caller
// runs inside a testing/synctest bubble, so a create's --async block waits
// out the simulator's create time, and the polls between, on the
// bubble's clock.
func startGenSim(t *testing.T, gen string, tweak func(*cluster.Config)) clitest.CmdRun {
	t.Helper()
	r, _ := clitest.SimClusterInMemory(t, gen, func(cfg *cluster.Config) {
		cfg.AuthNamespace = clitest.TestNamespace
		cfg.CreateTime = 20 * time.Millisecond
		cfg.Nodes, cfg.NodeMemoryMiB = 1, 4096 // (4096 - 2048) × 3 = 6144 MiB to place
		if tweak != nil {
			tweak(cfg)
		}
	})
	r.Env = nil
	return r
}

// The refusal rows of issue 25's table, against sim cluster of each
// generation: the exit code and the hint follow what that generation sends
// (2026: "No nodes remaining at scheduling stage <stage>" with stage and
// transient; 2024: the old texts, no stage, with --legacy-refusals).
func TestCreateRefusalsAgainstBothGenerations(t *testing.T) {
	cases := []struct {
		gen    string
		legacy bool
		args   []string
		code   int
		text   string // in the error
		hint   string
	}{
		{cluster.Generation2026, false, []string{"big", "64", "1024"}, cmdutil.ExitCapacityPermanent,
			"No nodes remaining at scheduling stage cpu_max_per_instance", "ask for fewer vCPUs"},
		{cluster.Generation2024, true, []string{"big", "64", "1024"}, cmdutil.ExitCapacityPermanent,
			"Requested vCPUs exceeds vCPU limit", "ask for fewer vCPUs"},
		{cluster.Generation2026, false, []string{"fat", "1", "8192"}, cmdutil.ExitCapacityTransient,
			"No nodes remaining at scheduling stage sufficient_idle_memory", "short of capacity at stage sufficient_idle_memory right now"},
		{cluster.Generation2024, true, []string{"fat", "1", "8192"}, cmdutil.ExitCapacityPermanent,
			"No nodes with enough idle RAM", "no node has enough free memory"},
		// Hard affinity is checked after the resource stages on 2026: a
		// full cluster with an impossible constraint answers the 507.
		{cluster.Generation2026, false, []string{"fat", "1", "8192", "--require-tag", "nope"}, cmdutil.ExitCapacityTransient,
			"sufficient_idle_memory", "right now"},
		{cluster.Generation2026, false, []string{"small", "1", "512", "--require-tag", "nope"}, cmdutil.ExitCapacityPermanent,
			"No nodes remaining at scheduling stage affinity_constraints: require_with_tag=['nope']", "hard placement constraint"},
	}
	for _, tc := range cases {
		name := tc.gen + " " + strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startGenSim(t, tc.gen, func(c *cluster.Config) { c.LegacyRefusals = tc.legacy })
				res := r.Run(t, append([]string{"instance", "create"}, append(tc.args, "-d", "8@debian:12")...)...)
				_, hint, _ := strings.Cut(res.Stderr, "hint: ")
				if res.Code != tc.code || !strings.Contains(res.Stderr, tc.text) || !strings.Contains(hint, tc.hint) {
					t.Errorf("want exit %d, %q, hint %q\n%s", tc.code, tc.text, tc.hint, res)
				}
			})
		})
	}
}

// Power actions: a 2026 server refuses to power on a paused instance (409,
// hint: unpause) and reports a failing hypervisor (500); a 2024 server
// powers a paused instance on.
func TestPowerActionsAgainstBothGenerations(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startGenSim(t, gen, nil)
				if res := r.Run(t, "instance", "create", "web1", "1", "512", "-d", "8@debian:12", "--async", "block"); res.Code != 0 {
					t.Fatal(res)
				}
				if res := r.Run(t, "instance", "pause", "web1"); res.Code != 0 {
					t.Fatal(res)
				}
				res := r.Run(t, "instance", "poweron", "web1")
				if gen == cluster.Generation2026 {
					if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, `hint: the instance is paused: "shakectl instance unpause" it instead`) {
						t.Errorf("2026 poweron of a paused instance:\n%s", res)
					}
				} else if res.Code != 0 {
					t.Errorf("2024 poweron of a paused instance:\n%s", res)
				}
			})
		})
	}
	synctest.Test(t, func(t *testing.T) {
		r := startGenSim(t, cluster.Generation2026, func(c *cluster.Config) { c.PowerFault = "libvirt said no" })
		if res := r.Run(t, "instance", "create", "web1", "1", "512", "-d", "8@debian:12", "--async", "block"); res.Code != 0 {
			t.Fatal(res)
		}
		res := r.Run(t, "instance", "poweroff", "web1", "-o", "json")
		if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "instance failed to power off: libvirt said no") || !strings.Contains(res.Stderr, "the hypervisor could not carry out the power action") {
			t.Errorf("2026 power fault:\n%s", res)
		}
	})
}

// Scoped tokens (2026): a 403 outside the token's scopes and an admin
// route without cluster-admin are explained as scopes (exit 4).
func TestScopedTokensAgainstSim2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startGenSim(t, cluster.Generation2026, func(c *cluster.Config) {
			c.AuthNamespace = "system"
			c.AuthScopes = []string{"instance.read", "node.read"}
		})
		r.Env = map[string]string{"SHAKENFIST_NAMESPACE": "system"}
		res := r.Run(t, "network", "create", "net1", "10.0.0.0/24")
		if res.Code != cmdutil.ExitAuth || !strings.Contains(res.Stderr, "scoped key needs <family>.<verb>") {
			t.Errorf("network create with instance.read:\n%s", res)
		}
		if res := r.Run(t, "instance", "list"); res.Code != 0 {
			t.Errorf("instance list with instance.read:\n%s", res)
		}
		res = r.Run(t, "node", "list")
		if res.Code != cmdutil.ExitAuth || !strings.Contains(res.Stderr, "cluster-admin scope") {
			t.Errorf("node list without cluster-admin:\n%s", res)
		}
	})
}

// Validation (2026): a 400 names the parameter, and the hint says which;
// a 2024 server's TypeError text gets the general hint.
func TestValidationAnswersAgainstBothGenerations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for gen, hint := range map[string]string{
			cluster.Generation2026: "the server refused the parameter bogus",
			cluster.Generation2024: "the server refused the request's parameters",
		} {
			r := startGenSim(t, gen, nil)
			res := r.Run(t, "api", "POST", "/instances", "-F", "name=x", "-F", "cpus=1", "-F", "memory=512", "-F", "bogus=1")
			if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "hint: "+hint) {
				t.Errorf("%s: %s", gen, res)
			}
		}
	})
}
