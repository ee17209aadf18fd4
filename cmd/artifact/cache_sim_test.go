package artifact_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// simFetching makes the simulator, in memory, with image fetches that
// take fetch; the test runs inside a testing/synctest bubble, so the
// fetch (and a --timeout that runs out before it ends) takes its time on
// the bubble's clock, not the wall clock.
func simFetching(t *testing.T, gen string, fetch time.Duration) clitest.CmdRun {
	t.Helper()
	r, _ := clitest.SimClusterInMemory(t, gen, func(cfg *cluster.Config) { cfg.ArtifactFetchTime = fetch })
	return r
}

// TestCacheWaitsForTheFetch: the server answers "initial" and fetches
// afterwards; artifact cache prints the artifact once it is fetched, with
// its first version, under --async pause and block alike.
func TestCacheWaitsForTheFetch(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		for _, async := range []string{"pause", "block"} {
			t.Run(gen+"/"+async, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r := simFetching(t, gen, 300*time.Millisecond)
					res := r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2", "--async", async, "-o", "simple")
					if res.Code != 0 || !strings.Contains(res.Stdout, "state\tcreated\n") || !strings.Contains(res.Stdout, "versions\t1 of 1\n") {
						t.Fatalf("cache did not wait for the fetch:\n%s", res)
					}
					// A second cache of the same image: the fetch ends with no
					// new version, and the command still returns.
					res = r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2", "--async", async, "-o", "simple")
					if res.Code != 0 || !strings.Contains(res.Stdout, "versions\t1 of 1\n") {
						t.Fatalf("second cache:\n%s", res)
					}
				})
			})
		}
	}
}

// TestCacheContinueDoesNotWait: --async continue prints the server's
// answer, the artifact before its fetch.
func TestCacheContinueDoesNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := simFetching(t, cluster.Generation2026, time.Hour)
		res := r.Run(t, "artifact", "cache", "https://images.example/debian-12.qcow2", "--async", "continue", "-o", "json", "--jq", ".state")
		if res.Code != 0 || strings.TrimSpace(res.Stdout) != "initial" {
			t.Fatalf("continue:\n%s", res)
		}
	})
}

// TestCacheTimeout: a --timeout that runs out before the fetch ends exits
// 124, whatever --async says.
func TestCacheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := simFetching(t, cluster.Generation2024, time.Hour)
		for _, async := range []string{"pause", "block"} {
			res := r.Run(t, "artifact", "cache", "https://images.example/slow.qcow2", "--async", async, "--timeout", "1s")
			if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "artifact slow.qcow2 was not fetched within 1s") {
				t.Errorf("--async %s --timeout 1s:\n%s", async, res)
			}
		}
	})
}

// TestCacheFetchFails: a URL the cluster cannot fetch exits 1 with the
// reason the server recorded ("DNS error", da448b1a's text for any
// failure), and prints no artifact on stdout.
func TestCacheFetchFails(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := simFetching(t, gen, 200*time.Millisecond)
				res := r.Run(t, "artifact", "cache", "https://images.invalid/nope.qcow2")
				if res.Code != cmdutil.ExitFailure || res.Stdout != "" ||
					!strings.Contains(res.Stderr, "artifact nope.qcow2: the cluster could not fetch the image: DNS error") {
					t.Fatalf("failed fetch:\n%s", res)
				}
				// The artifact is left in error, as the server leaves it.
				if got := strings.TrimSpace(r.Run(t, "artifact", "show", "nope.qcow2", "-o", "json", "--jq", ".state").Stdout); got != "error" {
					t.Errorf("state after the failed fetch: %s", got)
				}
				// Asking again fails again (a failed refresh, to the server), and
				// claims no cached copy: the artifact never had one.
				res = r.Run(t, "artifact", "cache", "https://images.invalid/nope.qcow2")
				if res.Code != cmdutil.ExitFailure || !strings.HasSuffix(strings.TrimSpace(res.Stderr), "could not fetch the image: DNS error") {
					t.Errorf("second failed fetch:\n%s", res)
				}
			})
		})
	}
}
