package blob_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestBlobEventsByGeneration: a 2026 cluster lists a blob's trail, newest
// first (here: a label took a second reference); a 2024 cluster, which
// neither routes nor advertises blob events, is refused with exit 1 and a
// message naming the capability.
func TestBlobEventsByGeneration(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			r, _ := clitest.SimCluster(t, gen, func(c *cluster.Config) { c.ArtifactFetchTime = 0 })
			blob := strings.TrimSpace(r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2", "-o", "json", "--jq", ".blob_uuid").Stdout)
			if len(blob) != 36 {
				t.Fatalf("cache gave blob %q", blob)
			}
			if res := r.Run(t, "label", "update", "prod", blob); res.Code != 0 {
				t.Fatal(res)
			}
			if gen == cluster.Generation2024 {
				res := r.Run(t, "blob", "events", blob)
				if res.Code != cmdutil.ExitFailure || res.Stdout != "" ||
					!strings.Contains(res.Stderr, `this server does not support blob events (it does not advertise the capability "blob-events")`) {
					t.Fatalf("2024:\n%s", res)
				}
				return
			}
			res := r.Run(t, "blob", "events", blob, "-o", "json", "--jq", ".[].message")
			want := "incremented reference count\nincremented reference count\ndb record created\n"
			if res.Code != 0 || res.Stdout != want {
				t.Fatalf("2026 blob events:\n%s\nwant stdout\n%s", res, want)
			}
			res = r.Run(t, "blob", "events", blob, "--type", "audit", "-o", "simple", "--no-headers")
			if res.Code != 0 || strings.Count(res.Stdout, "\n") != 1 || !strings.Contains(res.Stdout, "\tdb record created\t") {
				t.Errorf("--type audit:\n%s", res)
			}
			if res := r.Run(t, "blob", "events", "0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "blob not found") {
				t.Errorf("unknown blob:\n%s", res)
			}
		})
	}
}
