package artifact_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestArtifactVerbsAgainstSimCluster runs every artifact, blob and label
// verb against the simulator of both generations, as one session.
func TestArtifactVerbsAgainstSimCluster(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, nil)
				step := func(want int, args ...string) clitest.RunResult {
					t.Helper()
					res := r.Run(t, args...)
					if res.Code != want {
						t.Fatalf("shakectl %s: exit %d, want %d\n%s", strings.Join(args, " "), res.Code, want, res)
					}
					return res
				}
				jq := func(args ...string) string {
					t.Helper()
					return strings.TrimSpace(step(0, args...).Stdout)
				}
				id := jq("artifact", "cache", "https://images.example/debian-12.qcow2", "-o", "json", "--jq", ".uuid")
				jq("artifact", "cache", "https://images.example/other.qcow2")
				if out := step(0, "artifact", "list", "-o", "simple").Stdout; strings.Count(out, "\n") != 2 || !strings.Contains(out, id+"\tdebian-12.qcow2\tsystem\timage\t1 of 1\tcreated\tno\n") {
					t.Errorf("list:\n%s", out)
				}
				blob := jq("artifact", "show", "debian-12.qcow2", "-o", "json", "--jq", ".blob_uuid")
				if out := step(0, "artifact", "versions", id, "-o", "simple").Stdout; !strings.HasPrefix(out, "1\t"+blob+"\t4.0 MiB\t") {
					t.Errorf("versions:\n%s", out)
				}
				step(0, "artifact", "max-versions", id, "5")
				if got := jq("artifact", "show", id, "-o", "json", "--jq", ".max_versions"); got != "5" {
					t.Errorf("max_versions %s", got)
				}
				step(0, "artifact", "set-metadata", id, "owner", "ci")
				if got := jq("artifact", "show", id, "-o", "json", "--jq", ".metadata.owner"); got != "ci" {
					t.Errorf("metadata %s", got)
				}
				if got := step(0, "artifact", "get-metadata", id, "-o", "simple").Stdout; got != "owner\tci\n" {
					t.Errorf("get-metadata: %q", got)
				}
				step(0, "artifact", "delete-metadata", id, "owner")
				if got := jq("artifact", "get-metadata", id, "-o", "json"); got != "{}" {
					t.Errorf("get-metadata after delete-metadata: %s", got)
				}
				step(cmdutil.ExitAuth, "artifact", "unshare", id)
				if got := jq("artifact", "share", id, "-o", "json", "--jq", ".shared"); got != "true" {
					t.Errorf("share: %s", got)
				}
				step(0, "artifact", "unshare", id)
				if got := jq("artifact", "events", id, "--limit", "1", "-o", "json", "--jq", ".[].message"); got != "artifact unshare request from REST API" {
					t.Errorf("events: %s", got)
				}
				// Labels point at blobs; the blob then has two referrers.
				if out := step(0, "label", "update", "debian-prod", blob, "-o", "simple").Stdout; !strings.Contains(out, "blob_uuid\t"+blob+"\n") || !strings.Contains(out, "source_url\tsf://label/system/debian-prod\n") {
					t.Errorf("label update:\n%s", out)
				}
				if out := step(0, "label", "list", "-o", "simple").Stdout; !strings.HasPrefix(out, "debian-prod\tsystem\t"+blob+"\t1\tcreated\t") {
					t.Errorf("label list:\n%s", out)
				}
				step(0, "label", "show", "system/debian-prod")
				step(cmdutil.ExitFailure, "label", "show", "nosuch")
				var shown map[string]any
				if err := json.Unmarshal([]byte(step(0, "blob", "show", blob, "-o", "json").Stdout), &shown); err != nil {
					t.Fatal(err)
				}
				if refs, _ := shown["artifacts"].([]any); len(refs) != 2 || shown["reference_count"] != float64(2) {
					t.Errorf("blob show references: %v", shown)
				}
				if out := step(0, "blob", "show", blob, "-o", "simple").Stdout; !strings.Contains(out, "debian-12.qcow2 ("+id+")") || !strings.Contains(out, "debian-prod (") {
					t.Errorf("blob show:\n%s", out)
				}
				if n := strings.Count(step(0, "blob", "list", "-o", "simple").Stdout, "\n"); n != 2 {
					t.Errorf("blob list: %d blobs", n)
				}
				step(0, "label", "delete", "debian-prod")
				step(cmdutil.ExitNotFound, "artifact", "delete-version", id, "7")
				if got := jq("artifact", "delete-version", id, "1", "-o", "json", "--jq", ".state"); got != "deleted" {
					t.Errorf("deleting the last version deletes the artifact: %s", got)
				}
				step(0, "artifact", "delete", "other.qcow2")
				if out := step(0, "artifact", "delete", id).Stderr; !strings.Contains(out, "was already deleted") {
					t.Errorf("second delete: %s", out)
				}
				if got := jq("artifact", "list", "-o", "json"); got != "[]" {
					t.Errorf("list after deletes: %s", got)
				}
			})
		})
	}
}

// TestArtifactNameCompletion: TAB after `artifact show` offers the
// simulator's artifact names, labels left out. The simulator is in
// memory on synctest's clock: the cache waits out its fetch there.
func TestArtifactNameCompletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := clitest.SimClusterInMemory(t, cluster.Generation2026, nil)
		r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2")
		blob := strings.TrimSpace(r.Run(t, "artifact", "show", "debian-12.qcow2", "-o", "json", "--jq", ".blob_uuid").Stdout)
		r.Run(t, "label", "update", "prod", blob)
		f, out, _ := clitest.CompletionTestFactory(t)
		f.Transport = r.Transport
		env := map[string]string{"SHAKENFIST_API_URL": r.Url, "SHAKENFIST_NAMESPACE": "system", "SHAKENFIST_KEY": clitest.TestKey}
		f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		got, directive := clitest.RunComplete(t, f, out, "artifact", "show", "")
		if !slices.Equal(got, []string{"debian-12.qcow2"}) || directive != clitest.NoFileCompLine {
			t.Errorf("completion %q %s", got, directive)
		}
		// A verb with more arguments completes the artifact at its first
		// position, and offers no names for the key or value after it.
		for _, verb := range []string{"set-metadata", "delete-metadata", "max-versions", "delete-version"} {
			f, out, _ := clitest.CompletionTestFactory(t)
			f.Transport = r.Transport
			f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			if got, _ := clitest.RunComplete(t, f, out, "artifact", verb, ""); !slices.Equal(got, []string{"debian-12.qcow2"}) {
				t.Errorf("artifact %s <TAB>: %q, want the artifact name", verb, got)
			}
			f, out, _ = clitest.CompletionTestFactory(t)
			f.Transport = r.Transport
			f.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			if got, _ := clitest.RunComplete(t, f, out, "artifact", verb, "debian-12.qcow2", ""); len(got) != 0 {
				t.Errorf("artifact %s debian-12.qcow2 <TAB>: %q, want nothing", verb, got)
			}
		}
	})
}
