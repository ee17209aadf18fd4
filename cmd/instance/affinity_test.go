package instance_test

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

// The affinity flags send the 2026 binary form (issue 25), and refuse to
// be mixed with -m affinity=.
func TestAffinityFlagsSendTheBinaryForm(t *testing.T) {
	fa := clitest.NewStubs(t)
	// A 2026 server: its root page offers hard affinity.
	fa.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	// InstancesEndpoint.post answers the new instance, created.
	fa.Reply("POST", "/instances", 200, `{"uuid":"00000000-0000-4000-8000-000000000004","name":"gpu1","namespace":"ns1","cpus":1,"memory":1024,"node":"","state":"created","power_state":"","version":1}`)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "gpu1", "1", "1024", "-d", "8",
		"--require-tag", "gpu", "--forbid-tag", "db", "--prefer-tag", "fastdisk", "--avoid-tag", "spinning", "--prefer-tag", "nvme")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var body struct {
		Metadata struct {
			Affinity map[string][]string `json:"affinity"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(fa.LastBody("POST", "/instances")), &body); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(body.Metadata.Affinity)
	if string(got) != `{"prefer_with_tag":["fastdisk","nvme"],"prefer_without_tag":["spinning"],"require_with_tag":["gpu"],"require_without_tag":["db"]}` {
		t.Errorf("affinity sent: %s", got)
	}
	res = clitest.AgainstStubs(fa).Run(t, "instance", "create", "gpu2", "1", "1024", "-d", "8", "--require-tag", "gpu", "-m", `affinity={"gpu":1}`)
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "not both") {
		t.Errorf("mixed forms: %s", res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "gpu3", "1", "1024", "-d", "8", "--require-tag", " "); res.Code != cmdutil.ExitUsage {
		t.Errorf("empty tag: %s", res)
	}
}

// startAffinitySim makes sim cluster in memory, node2 tagged gpu; the
// caller runs inside a testing/synctest bubble, so a create waits out the
// simulator's create time on the bubble's clock.
func startAffinitySim(t *testing.T, gen string) clitest.CmdRun {
	t.Helper()
	r, _ := clitest.SimClusterInMemory(t, gen, func(cfg *cluster.Config) {
		cfg.AuthNamespace = clitest.TestNamespace
		cfg.CreateTime = 20 * time.Millisecond
		cfg.NodeTags = map[string][]string{"node2": {"gpu"}}
	})
	r.Env = nil
	return r
}

// Against a 2026 sim the hard constraint holds (placed on the one gpu
// node) or is refused with the 409 and its hint (exit 69).
func TestAffinityFlagsAgainstSim2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startAffinitySim(t, cluster.Generation2026)
		if res := r.Run(t, "instance", "create", "gpu1", "1", "1024", "-d", "8@debian:12", "--require-tag", "gpu", "-o", "json", "--jq", ".metadata.affinity.require_with_tag[0]"); res.Code != 0 || strings.TrimSpace(res.Stdout) != "gpu" {
			t.Fatalf("placed with --require-tag gpu: %s", res)
		}
		res := r.Run(t, "instance", "create", "tpu1", "1", "1024", "-d", "8@debian:12", "--require-tag", "tpu")
		if res.Code != cmdutil.ExitCapacityPermanent || !strings.Contains(res.Stderr, "affinity_constraints: require_with_tag=['tpu']") || !strings.Contains(res.Stderr, "hard placement constraint") {
			t.Errorf("impossible constraint: %s", res)
		}
	})
}

// Against a 2024 sim (no network-delete-async among its capabilities) the
// soft flags become weights, and the hard ones are refused before any
// create.
func TestAffinityFlagsAgainstSim2024(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := startAffinitySim(t, cluster.Generation2024)
		res := r.Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "--prefer-tag", "fastdisk", "--avoid-tag", "spinning", "-o", "json", "--jq", ".metadata.affinity")
		var got map[string]int
		if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &got) != nil || got["fastdisk"] != 1 || got["spinning"] != -1 || len(got) != 2 {
			t.Fatalf("2024 weights: %s", res)
		}
		res = r.Run(t, "instance", "create", "gpu1", "1", "1024", "-d", "8@debian:12", "--require-tag", "gpu")
		if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "does not support hard affinity") {
			t.Errorf("2024 hard affinity: %s", res)
		}
		if res := r.Run(t, "instance", "list", "-o", "columns=name"); strings.Contains(res.Stdout, "gpu1") {
			t.Errorf("a refused hard constraint still created an instance:\n%s", res)
		}
	})
}
