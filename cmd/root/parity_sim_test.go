package root_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestSFClientParityCommandsAgainstSimCluster runs issue 35's commands
// (interface show/float/defloat/set-metadata/delete-metadata, network
// add-routed/delete-routed, instance consoledelete/vdiconsolefile and
// await --for agent, node cpuhogs, admin lock list, backup create) against
// the cluster simulator of both generations, as the system namespace.
func TestSFClientParityCommandsAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) {
					c.CreateTime, c.NetworkDeployTime, c.TeardownLag = 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
					c.AgentBoot = 300 * time.Millisecond
					c.CPUHogs = map[string]map[string]float64{"node1": {"sf_net": 0.61}}
				})
				step := stepper(t, r)
				step(0, "network", "create", "net1", "10.0.0.0/24")
				step(0, "instance", "create", "web1", "1", "512", "-d", "8", "-n", "net1", "--async", "continue")

				// await: the agent, after the instance is created.
				res := step(0, "instance", "await", "web1", "--timeout", "30s", "-o", "json")
				var inst map[string]any
				if err := json.Unmarshal([]byte(res.Stdout), &inst); err != nil || inst["agent_state"] != "ready" || inst["state"] != "created" {
					t.Fatalf("await printed %v (%v)", inst, err)
				}
				step(0, "instance", "execute", "web1", "--", "echo", "hi")
				step(0, "instance", "create", "noagent", "1", "512", "-d", "8", "--side-channel", "sf-agent2", "--async", "continue")
				if res := step(cmdutil.ExitFailure, "instance", "await", "noagent", "--timeout", "30s"); !strings.Contains(res.Stderr, "no sf-agent side channel") {
					t.Errorf("await of an instance without an agent:\n%s", res)
				}

				// interface show, float, defloat, metadata.
				ifc := inst["interfaces"].([]any)[0].(map[string]any)["uuid"].(string)
				if res := step(0, "interface", "show", ifc, "-o", "simple"); !strings.Contains(res.Stdout, "ipv4\t10.0.0.") || strings.Contains(res.Stdout, "floating") {
					t.Errorf("interface show:\n%s", res)
				}
				res = step(0, "interface", "float", ifc, "--jq", ".floating")
				if !strings.HasPrefix(res.Stdout, "192.168.") {
					t.Errorf("float printed no floating address: %q", res.Stdout)
				}
				step(0, "interface", "defloat", ifc)
				if res := step(0, "interface", "show", ifc, "--jq", ".floating"); strings.TrimSpace(res.Stdout) != "null" {
					t.Errorf("defloat left %q", res.Stdout)
				}
				step(0, "interface", "set-metadata", ifc, "role", "frontend")
				if res := step(0, "interface", "get-metadata", ifc, "-o", "json"); !strings.Contains(res.Stdout, `"role": "frontend"`) {
					t.Errorf("interface metadata: %s", res.Stdout)
				}
				step(0, "interface", "delete-metadata", ifc, "role")
				step(cmdutil.ExitNotFound, "interface", "show", "00000000-0000-4000-8000-000000000000")

				// network add-routed, delete-routed.
				res = step(0, "network", "add-routed", "net1", "--jq", ".address")
				addr := strings.Trim(strings.TrimSpace(res.Stdout), `"`)
				if !strings.HasPrefix(addr, "192.168.") {
					t.Fatalf("add-routed: %q", res.Stdout)
				}
				if gen == cluster.Generation2024 {
					// The 2024 server compares the reservation's holder,
					// stored as a list, with a tuple: no routed address
					// can be deleted (the captures' r8, sfc-q8).
					if res := step(cmdutil.ExitAuth, "network", "delete-routed", "net1", addr); !strings.Contains(res.Stderr, "403 Forbidden: address not routed by this network") {
						t.Errorf("delete-routed on 2024:\n%s", res)
					}
				} else {
					step(0, "network", "delete-routed", "net1", addr)
					if res := step(cmdutil.ExitNotFound, "network", "delete-routed", "net1", addr); !strings.Contains(res.Stderr, "address not routed") {
						t.Errorf("second delete-routed:\n%s", res)
					}
				}

				// consoledelete, vdiconsolefile (never over an existing file).
				step(0, "instance", "consoledelete", "web1")
				dir := t.TempDir()
				vv := filepath.Join(dir, "web1.vv")
				step(0, "instance", "vdiconsolefile", "web1", dir)
				body, err := os.ReadFile(vv)
				if err != nil || !strings.HasPrefix(string(body), "[virt-viewer]\ntype=spice\nhost=") || !strings.Contains(string(body), "delete-this-file=1\n") {
					t.Errorf("vdiconsolefile wrote %q (%v)", body, err)
				}
				if res := step(cmdutil.ExitFailure, "instance", "vdiconsolefile", "web1", vv); !strings.Contains(res.Stderr, "--clobber") {
					t.Errorf("vdiconsolefile over an existing file:\n%s", res)
				}
				step(0, "instance", "vdiconsolefile", "web1", vv, "--clobber")
				if res := step(0, "instance", "vdiconsolefile", "web1", "-"); !strings.HasPrefix(res.Stdout, "[virt-viewer]\n") {
					t.Errorf("vdiconsolefile to stdout: %q", res.Stdout)
				}

				// node cpuhogs: exit 3 with the hog listed; --ignore clears it.
				res = step(cmdutil.ExitChecksFailed, "node", "cpuhogs", "-o", "simple")
				if res.Stdout != "node1\tsf_net\t0.61\t0.25\n" {
					t.Errorf("cpuhogs: %q", res.Stdout)
				}
				step(0, "node", "cpuhogs", "--ignore", "sf_net")

				// admin lock list: nothing held while nothing is being
				// worked on; an instance's delete lock while its node
				// tears it down (etcd's key in 2024, the MariaDB row's
				// in 2026).
				if res := step(0, "admin", "lock", "list", "--jq", "length"); strings.TrimSpace(res.Stdout) != "0" {
					t.Errorf("lock list with nothing held: %q", res.Stdout)
				}
				step(0, "instance", "delete", "noagent", "--async", "continue")
				wantLock := map[string]string{cluster.Generation2024: "/sflocks/sf/instance/", cluster.Generation2026: "instance/"}[gen]
				if res := step(0, "admin", "lock", "list", "--jq", ".[0].lock"); !strings.HasPrefix(strings.TrimSpace(res.Stdout), wantLock) {
					t.Errorf("lock list: %q", res.Stdout)
				}

				// backup create: every blob, then the index; a second run has them.
				step(0, "artifact", "cache", "https://images.example.com/debian-12.qcow2", "--async", "block")
				bdir := t.TempDir()
				res = step(0, "backup", "create", bdir, "-o", "json")
				var got map[string]any
				if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || got["downloaded"].(float64) < 1 {
					t.Fatalf("backup create: %s (%v)", res, err)
				}
				if _, err := os.Stat(filepath.Join(bdir, "summary.json")); err != nil {
					t.Error(err)
				}
				step(cmdutil.ExitFailure, "backup", "create", bdir)
				res = step(0, "backup", "create", bdir, "--clobber", "-o", "json")
				if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || got["downloaded"].(float64) != 0 || got["already_had"].(float64) < 1 {
					t.Errorf("resumed backup: %s", res.Stdout)
				}
			})
		})
	}
}

// TestSFClientCounterpartsLeftOutElsewhereAgainstSimCluster runs, against
// both generations of the simulator, the sf-client counterparts no other
// simulator walk-through reaches: instance pause/unpause, node show,
// namespace list/delete-metadata/update-key, and (2026) namespace claim
// show.
func TestSFClientCounterpartsLeftOutElsewhereAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) { c.CreateTime = 50 * time.Millisecond })
				step := stepper(t, r)

				step(0, "instance", "create", "web1", "1", "512", "-d", "8")
				step(0, "instance", "pause", "web1")
				if res := step(0, "instance", "show", "web1", "--jq", ".power_state"); res.Stdout != "paused\n" {
					t.Errorf("after pause: %q", res.Stdout)
				}
				step(0, "instance", "unpause", "web1")
				if res := step(0, "instance", "show", "web1", "--jq", ".power_state"); res.Stdout != "on\n" {
					t.Errorf("after unpause: %q", res.Stdout)
				}

				if res := step(0, "node", "show", "node1", "-o", "json", "--jq", ".name"); res.Stdout != "node1\n" {
					t.Errorf("node show: %q", res.Stdout)
				}
				step(cmdutil.ExitNotFound, "node", "show", "node99")

				step(0, "namespace", "create", "ci")
				if res := step(0, "namespace", "list", "-o", "columns=NAME", "--no-headers"); !strings.Contains(res.Stdout, "ci\n") || !strings.Contains(res.Stdout, "system\n") {
					t.Errorf("namespace list:\n%s", res.Stdout)
				}
				step(0, "namespace", "set-metadata", "ci", "owner", "team-a")
				step(0, "namespace", "delete-metadata", "ci", "owner")
				if res := step(0, "namespace", "get-metadata", "ci", "-o", "json"); strings.Contains(res.Stdout, "owner") {
					t.Errorf("delete-metadata left %s", res.Stdout)
				}
				add := r
				add.Stdin = deployKey + "\n"
				if res := add.Run(t, "namespace", "add-key", "ci", "deploy"); res.Code != 0 {
					t.Fatal(res)
				}
				add.Stdin = deployKey + "-rotated\n"
				if res := add.Run(t, "namespace", "update-key", "ci", "deploy"); res.Code != 0 || strings.Contains(res.Stdout+res.Stderr, deployKey) {
					t.Fatal(res)
				}
				if res := step(0, "namespace", "show", "ci", "-o", "simple"); !strings.Contains(res.Stdout, "keys\tdeploy\n") {
					t.Errorf("after update-key:\n%s", res.Stdout)
				}

				if gen == cluster.Generation2026 {
					res := step(0, "namespace", "claim", "create", "ci", "--cpus", "2", "--memory", "1024", "--disk", "10", "--expiry", "1h", "--jq", ".uuid")
					uuid := strings.TrimSpace(res.Stdout)
					if res := step(0, "namespace", "claim", "show", "ci", uuid, "--jq", ".limit_cpus"); res.Stdout != "2\n" {
						t.Errorf("claim show: %q", res.Stdout)
					}
				}
			})
		})
	}
}
