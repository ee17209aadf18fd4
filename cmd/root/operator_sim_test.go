package root_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// startSim makes `sim cluster` of one server generation in memory, with
// the test's key as namespace's, and returns a runner logged in to it.
// The caller runs inside a testing/synctest bubble: the simulator's
// create, deploy and teardown times pass on the bubble's clock, so the
// walk-throughs wait for the states they assert without waiting for
// the wall clock, however busy the machine.
func startSim(t *testing.T, generation, namespace string, networkDeploy time.Duration) clitest.CmdRun {
	t.Helper()
	r, _ := clitest.SimClusterInMemory(t, generation, func(cfg *cluster.Config) {
		cfg.AuthNamespace = namespace
		cfg.CreateTime = 50 * time.Millisecond
		cfg.NetworkDeployTime = networkDeploy
		cfg.TeardownLag = 50 * time.Millisecond
	})
	r.Env = map[string]string{"SHAKENFIST_NAMESPACE": namespace}
	return r
}

// startOperatorSim is startSim for the operator commands: the system
// namespace's key.
func startOperatorSim(t *testing.T, generation string) clitest.CmdRun {
	return startSim(t, generation, "system", 50*time.Millisecond)
}

func stepper(t *testing.T, r clitest.CmdRun) func(want int, args ...string) clitest.RunResult {
	return func(want int, args ...string) clitest.RunResult {
		t.Helper()
		res := r.Run(t, args...)
		if res.Code != want {
			t.Fatalf("shakectl %s: exit %d, want %d\n%s", strings.Join(args, " "), res.Code, want, res)
		}
		return res
	}
}

const deployKey = "d3ploy-key-of-namespace-ci-41c7"

// TestOperatingWalkThroughAgainstSimCluster is the walk-through of
// docs/operating.md (a namespace with a key, metadata, trust and a
// capacity claim, used and then cleaned away) against the 2026 simulator,
// and the parts a 2024 server has against the 2024 one.
func TestOperatingWalkThroughAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startOperatorSim(t, gen)
				step := stepper(t, r)
				step(0, "namespace", "create", "ci")
				add := r
				add.Stdin = deployKey + "\n"
				expiry := []string{}
				if gen == cluster.Generation2026 {
					expiry = []string{"--expiry", "720h"}
				}
				if res := add.Run(t, append([]string{"namespace", "add-key", "ci", "deploy"}, expiry...)...); res.Code != 0 || strings.Contains(res.Stdout+res.Stderr, deployKey) {
					t.Fatal(res)
				}
				if gen == cluster.Generation2024 {
					// A 2024 server has no key expiry: said before anything is sent.
					if res := add.Run(t, "namespace", "add-key", "ci", "other", "--expiry", "720h"); res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "expiry") {
						t.Fatal(res)
					}
				}
				if res := step(0, "namespace", "show", "ci", "-o", "simple"); !strings.Contains(res.Stdout, "keys\tdeploy\n") {
					t.Fatalf("the key is not listed:\n%s", res)
				}
				step(0, "namespace", "set-metadata", "ci", "owner", "team-a")
				if res := step(0, "namespace", "get-metadata", "ci", "--jq", ".owner"); res.Stdout != "team-a\n" {
					t.Fatal(res)
				}
				step(0, "namespace", "create", "ops")
				if res := step(0, "namespace", "add-trust", "ci", "ops", "-o", "json", "--jq", ".trust.full | join(\",\")"); !strings.Contains(res.Stdout, "ops") {
					t.Fatal(res)
				}
				step(0, "namespace", "remove-trust", "ci", "ops")

				// The operating page's order: the claim, then the instance it covers.
				var claim struct{ UUID string }
				if gen == cluster.Generation2026 {
					res := step(0, "namespace", "claim", "create", "ci", "--cpus", "4", "--memory", "4096", "--disk", "100", "--expiry", "24h", "-o", "json")
					if json.Unmarshal([]byte(res.Stdout), &claim) != nil || claim.UUID == "" {
						t.Fatal(res)
					}
					if res := step(0, "namespace", "claim", "list", "ci", "-o", "columns=UUID,CPUS"); !strings.Contains(res.Stdout, claim.UUID) || !strings.Contains(res.Stdout, "0/4") {
						t.Fatal(res)
					}
					if res := step(cmdutil.ExitFailure, "namespace", "claim", "create", "ci", "--cpus", "4", "--memory", "4096", "--disk", "100", "--expiry", "24h"); !strings.Contains(res.Stderr, "already holds") {
						t.Fatal(res)
					}
					if res := step(cmdutil.ExitCapacityPermanent, "namespace", "claim", "create", "ops", "--cpus", "100000", "--memory", "1", "--disk", "1", "--expiry", "1h"); !strings.Contains(res.Stderr, "capacity to promise") {
						t.Fatal(res)
					}
				}
				// The key works: a network and an instance in ci, made with it.
				asCI := r
				asCI.Env = map[string]string{"SHAKENFIST_NAMESPACE": "ci", "SHAKENFIST_KEY": deployKey}
				ciStep := stepper(t, asCI)
				ciStep(0, "network", "create", "cinet", "10.5.0.0/24")
				ciStep(0, "instance", "create", "ci1", "1", "1024", "-d", "8@debian:12", "-n", "cinet", "--async", "block")
				if res := ciStep(0, "instance", "list", "-o", "json", "--jq", ".[].namespace"); res.Stdout != "ci\n" {
					t.Fatal(res)
				}

				if gen == cluster.Generation2026 {
					if res := step(0, "namespace", "claim", "update", "ci", claim.UUID, "--cpus", "8", "-o", "simple"); !strings.Contains(res.Stdout, "/8\n") {
						t.Fatal(res)
					}
					// The instance made with ci's key counts against its claim.
					if res := step(0, "namespace", "claim", "list", "ci", "-o", "columns=CPUS", "--no-headers"); res.Stdout != "1/8\n" {
						t.Fatalf("%q", res.Stdout)
					}
					step(0, "namespace", "claim", "delete", "ci", claim.UUID)
				}

				if res := step(cmdutil.ExitFailure, "namespace", "delete", "ci"); !strings.Contains(res.Stderr, "namespace clean") {
					t.Fatalf("delete of a namespace with instances:\n%s", res)
				}
				step(0, "namespace", "clean", "ci", "--yes")
				step(0, "namespace", "delete", "ci")
				if res := step(cmdutil.ExitNotFound, "namespace", "delete-key", "system", "nosuch"); !strings.Contains(res.Stderr, "no key of that name") {
					t.Fatal(res)
				}
			})
		})
	}
}

// TestOperatorInstanceNetworkNodeCommandsAgainstSimCluster runs the
// instance, network and node operator commands against both simulator
// generations: what the client sends and how the simulator (written from
// the server's source) answers must agree.
func TestOperatorInstanceNetworkNodeCommandsAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startOperatorSim(t, gen)
				step := stepper(t, r)
				step(0, "network", "create", "opnet", "10.7.0.0/24", "--dns")
				step(0, "instance", "create", "op1", "1", "1024", "-D", "size=8,base=debian:12,bus=virtio", "-f", "opnet",
					"-V", "model=qxl,memory=65536", "--uefi", "-s", "sf-agent", "--async", "block")

				step(0, "instance", "set-metadata", "op1", "tags", `["ops"]`)
				if res := step(0, "instance", "get-metadata", "op1", "--jq", ".tags[0]"); res.Stdout != "ops\n" {
					t.Fatal(res)
				}
				step(0, "instance", "delete-metadata", "op1", "tags")
				step(0, "instance", "consoledata", "op1", "--length", "512")
				if res := step(0, "instance", "snapshot", "op1", "-o", "json", "--jq", ".[0].device"); res.Stdout != "vda\n" {
					t.Fatal(res)
				}
				if res := step(0, "instance", "show", "op1", "--snapshots", "-o", "json", "--jq", ".snapshots | length"); res.Stdout != "1\n" {
					t.Fatal(res)
				}

				if res := step(0, "network", "instances", "opnet", "-o", "json", "--jq", ".[0].floating != null"); res.Stdout != "true\n" {
					t.Fatal(res)
				}
				if res := step(0, "network", "addresses", "opnet", "-o", "json", "--jq", "length > 0"); res.Stdout != "true\n" {
					t.Fatal(res)
				}
				if res := step(0, "network", "events", "opnet", "-o", "json", "--jq", "length > 0"); res.Stdout != "true\n" {
					t.Fatal(res)
				}
				step(0, "network", "ping", "opnet", "10.7.0.1")
				// A second interface, hot-plugged (sf-client's add-interface),
				// on its own network with the address asked for.
				step(0, "network", "create", "opnet2", "10.8.0.0/24")
				if res := step(0, "instance", "add-interface", "op1", "-n", "opnet2@10.8.0.9", "-o", "json", "--jq", ".ipv4"); res.Stdout != "10.8.0.9\n" {
					t.Fatal(res)
				}
				if res := step(0, "instance", "show", "op1", "-o", "json", "--jq", "[.interfaces[].order] | map(tostring) | join(\",\")"); res.Stdout != "0,1\n" {
					t.Fatal(res)
				}
				if res := step(cmdutil.ExitUsage, "instance", "add-interface", "op1", "-n", "opnet2", "-N", "network_uuid=opnet2"); !strings.Contains(res.Stderr, "none of the others can be") {
					t.Fatal(res)
				}
				step(cmdutil.ExitNotFound, "instance", "add-interface", "op1", "-f", "nosuchnet")
				step(0, "network", "set-metadata", "opnet", "owner", "ops")
				step(0, "network", "delete-metadata", "opnet", "owner")

				res := step(0, "node", "list", "-o", "json", "--jq", ".[0].name")
				node := strings.TrimSpace(res.Stdout)
				step(0, "node", "events", node, "--limit", "1")
				if gen == cluster.Generation2026 {
					if res := step(0, "node", "resources", "-o", "json", "--jq", "length > 0"); res.Stdout != "true\n" {
						t.Fatal(res)
					}
				} else if res := step(cmdutil.ExitFailure, "node", "resources"); !strings.Contains(res.Stderr, "does not support cluster resources") {
					t.Fatal(res)
				}

				// node delete (admin): confirmed with --yes, the node comes back
				// deleted; an unknown node is exit 5.
				res = step(0, "node", "list", "-o", "json", "--jq", ".[-1].name")
				last := strings.TrimSpace(res.Stdout)
				step(cmdutil.ExitUsage, "node", "delete", last)
				if res := step(0, "node", "delete", last, "--yes", "-o", "json", "--jq", ".state"); res.Stdout != "deleted\n" {
					t.Fatal(res)
				}
				step(cmdutil.ExitNotFound, "node", "delete", "no-such-node", "--yes")

				step(cmdutil.ExitUsage, "instance", "delete-all")
				// "system" with the system key is every namespace: asked
				// for by --all-namespaces, never by --namespace system.
				step(cmdutil.ExitUsage, "instance", "delete-all", "--namespace", "system", "--yes")
				if res := step(0, "instance", "delete-all", "--all-namespaces", "--yes", "-o", "json", "--jq", "length"); res.Stdout != "1\n" {
					t.Fatal(res)
				}
				step(0, "network", "delete-all", "--all-namespaces", "--yes", "--wait-for-interfaces")
			})
		})
	}
}
