package cluster

import (
	"bytes"
	"testing"
	"testing/synctest"
	"time"
)

// Capacity claims (2026), written from client-python
// docs/namespace-claims.md @8120e80a.

func TestClaims2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two nodes of 4 vCPUs, 8192 MiB, 100 GiB (no overcommit): the
		// cluster can promise 8 vCPUs, 16384 MiB, 200 GB.
		_, c := bubbleSim(t, gen2026)
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ci", "key_name": "k", "key": "s"})
		body := map[string]any{"limit_cpus": 4, "limit_memory_mb": 8192, "limit_disk_gb": 100, "expires_in_seconds": 3600}
		a := c.do("POST", "/auth/namespaces/ci/claims", body)
		if a.status != 200 {
			t.Fatalf("create: %d %s", a.status, a.raw)
		}
		cl := a.obj(t)
		wantKeys(t, "claim", cl, "uuid", "namespace", "state", "coverage_state", "limit_cpus", "limit_memory_mb",
			"limit_disk_gb", "used_cpus", "used_memory_mb", "used_disk_gb", "expires_at", "updated_at")
		if cl["state"] != "created" || cl["coverage_state"] != "active" || cl["limit_cpus"] != float64(4) {
			t.Errorf("claim %s", a.raw)
		}
		id := cl["uuid"].(string)
		// A second claim is 409, even an over-large one (that check comes first).
		wantError(t, c.do("POST", "/auth/namespaces/ci/claims", body), 409, "already holds")
		big := map[string]any{"limit_cpus": 400, "limit_memory_mb": 1, "limit_disk_gb": 1, "expires_in_seconds": 60}
		wantError(t, c.do("POST", "/auth/namespaces/ci/claims", big), 409, "already holds")
		// Another namespace cannot be promised more than is left: 507
		// with no stage, no transient, no Retry-After.
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "other"})
		over := map[string]any{"limit_cpus": 5, "limit_memory_mb": 1, "limit_disk_gb": 1, "expires_in_seconds": 60}
		r := c.do("POST", "/auth/namespaces/other/claims", over)
		wantError(t, r, 507, "capacity")
		if r.header.Get("Retry-After") != "" {
			t.Errorf("claim 507 carries Retry-After %q", r.header.Get("Retry-After"))
		}
		wantError(t, c.do("POST", "/auth/namespaces/other/claims", map[string]any{"limit_cpus": 1}), 400, "limit_memory_mb: Missing data for required field.")
		wantError(t, c.do("POST", "/auth/namespaces/other/claims", map[string]any{"limit_cpus": -1, "limit_memory_mb": 1, "limit_disk_gb": 1, "expires_in_seconds": 1}), 400, "limit_cpus:")

		// Placements draw the claim down; it cannot shrink below them.
		ci := loginAs(t, c, "ci", "s")
		ci.mustCreate("web1", 2, 1024, 10, nil)
		if got := c.do("GET", "/auth/namespaces/ci/claims/"+id, nil).obj(t); got["used_cpus"] != float64(2) || got["used_disk_gb"] != float64(10) {
			t.Errorf("used after a 2 vCPU create: %v", got)
		}
		wantError(t, c.do("PUT", "/auth/namespaces/ci/claims/"+id, map[string]any{"limit_cpus": 1}), 409, "a claim cannot be shrunk below what it is already using")
		wantError(t, c.do("PUT", "/auth/namespaces/ci/claims/"+id, map[string]any{}), 400, "")
		// A field mask: only the expiry changes.
		before := c.do("GET", "/auth/namespaces/ci/claims/"+id, nil).obj(t)
		advance(10 * time.Second)
		after := c.do("PUT", "/auth/namespaces/ci/claims/"+id, map[string]any{"expires_in_seconds": 7200}).obj(t)
		if after["limit_cpus"] != before["limit_cpus"] || after["expires_at"].(float64) <= before["expires_at"].(float64) {
			t.Errorf("re-date changed %v into %v", before, after)
		}
		// Non-admins get 401; claims are not in 2024 at all.
		wantError(t, ci.do("GET", "/auth/namespaces/ci/claims", nil), 401, "unauthorized")
		if l := c.do("GET", "/auth/namespaces/ci/claims", nil).list(t); len(l) != 1 {
			t.Errorf("list %v", l)
		}
		// Expired: covers nothing, cannot be changed, does not go away.
		advance(7201 * time.Second)
		c.login() // the token has expired meanwhile
		if got := c.do("GET", "/auth/namespaces/ci/claims/"+id, nil).obj(t); got["state"] != "created" || got["coverage_state"] != "expired" {
			t.Errorf("expired claim %v", got)
		}
		wantError(t, c.do("PUT", "/auth/namespaces/ci/claims/"+id, map[string]any{"limit_cpus": 8}), 409, "no longer active")
		del := c.do("DELETE", "/auth/namespaces/ci/claims/"+id, nil)
		if del.status != 200 || del.obj(t)["uuid"] != id {
			t.Errorf("delete: %d %s, want the claim as it was", del.status, del.raw)
		}
		wantError(t, c.do("GET", "/auth/namespaces/ci/claims/"+id, nil), 404, "claim not found")
	})
	_, old := startSim(t, nil)
	if a := old.do("GET", "/auth/namespaces/system/claims", nil); a.status != 404 || !bytes.Contains(a.raw, []byte("<title>404 Not Found</title>")) {
		t.Errorf("2024 claims: %d %s, want the HTML 404 of an unrouted path", a.status, a.raw)
	}
}
