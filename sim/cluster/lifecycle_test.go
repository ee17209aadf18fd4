package cluster

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// These tests run the simulator's Handler over an in-memory transport inside
// a synctest bubble: time.Sleep advances the virtual clock exactly, and
// synctest.Wait lets the simulator's timers finish before we look.

func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func stateOf(t *testing.T, c *apiClient, ref string) string {
	t.Helper()
	a := c.do("GET", "/instances/"+ref, nil)
	if a.status != http.StatusOK {
		t.Fatalf("show %s: %d %s", ref, a.status, a.raw)
	}
	s, _ := a.obj(t)["state"].(string)
	return s
}

func TestInstanceMovesThroughStatesOverCreateTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(c *Config) { c.CreateTime = time.Second })
		i := c.mustCreate("web1", 1, 1024, 10, nil)
		var elapsed time.Duration
		if i["state"] != "initial" || i["power_state"] != "initial" {
			t.Fatalf("new instance %v, want state initial, power initial", i)
		}
		// initial, preflight, creating and created over the create time.
		for _, step := range []struct {
			at   time.Duration
			want string
		}{{332 * time.Millisecond, "initial"}, {334 * time.Millisecond, "preflight"}, {667 * time.Millisecond, "creating"}, {999 * time.Millisecond, "creating"}} {
			advance(step.at - elapsed)
			elapsed = step.at
			if s := stateOf(t, c, "web1"); s != step.want {
				t.Errorf("at %s: %s, want %s", step.at, s, step.want)
			}
		}
		advance(time.Millisecond)
		a := c.do("GET", "/instances/web1", nil).obj(t)
		if a["state"] != "created" || a["power_state"] != "on" {
			t.Errorf("at 1s: %v, want created and on", a)
		}
	})
}

// TestDeleteReturnsCapacityAfterTeardownLag: the capacity of a deleted
// instance is back exactly --teardown-lag later, not before.
func TestDeleteReturnsCapacityAfterTeardownLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := bubbleSim(t, func(c *Config) {
			c.Nodes = 1
			c.CreateTime = 100 * time.Millisecond
		})
		c.mustCreate("a", 4, 1024, 10, nil)
		advance(time.Second)
		del := c.do("DELETE", "/instances/a", nil)
		if del.status != http.StatusOK || del.obj(t)["state"] != "created" { // the view as it was
			t.Fatalf("delete: %d %s", del.status, del.raw)
		}
		wantError(t, c.create("b", 4, 1024, 10, nil), 507, "idle CPU", "stage", "transient")

		advance(5499 * time.Millisecond)
		wantError(t, c.create("c", 4, 1024, 10, nil), 507, "idle CPU", "stage", "transient")
		if u := srv.NodeUsage()[0]; u.UsedCPUs != 4 {
			t.Errorf("5.499s after the delete: %d vCPUs charged, want 4", u.UsedCPUs)
		}

		advance(time.Millisecond)
		if u := srv.NodeUsage()[0]; u.UsedCPUs != 0 || u.Instances != 0 {
			t.Errorf("5.5s after the delete: %+v, want nothing charged", u)
		}
		c.mustCreate("d", 4, 1024, 10, nil)
	})
}

// TestRefusedCreateIsCleanedUp: the error record is deleted shortly after
// (--error-cleanup), and only then does its address go (into the halo).
func TestRefusedCreateIsCleanedUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(c *Config) {
			c.Nodes = 1
			c.ErrorCleanup = 2 * time.Second
			c.AddressHalo = 10 * time.Second
		})
		c.mustNetwork("net", "10.3.0.0/29")
		onNet := map[string]any{"network": []map[string]any{{"network_uuid": "net"}}}
		for _, name := range []string{"f1", "f2", "f3", "f4"} { // four of the five pool addresses
			c.mustCreate(name, 0, 1, 1, onNet)
		}
		wantError(t, c.create("big", 5, 1024, 10, onNet), 507, "vCPU", "stage", "transient")
		if s := stateOf(t, c, "big"); s != "initial-error" {
			t.Fatalf("refused create is %s, want initial-error", s)
		}
		// The only pool address is held by the error record.
		wantError(t, c.create("x", 1, 1024, 10, onNet), 507, "No free addresses")

		advance(2 * time.Second)
		if a := c.do("GET", "/instances/big", nil); a.status != http.StatusNotFound {
			t.Errorf("error record still there by name after cleanup: %d %s", a.status, a.raw)
		}
		all := c.do("GET", "/instances", map[string]any{"all": true}).list(t)
		deleted := 0
		for _, i := range all {
			if i["state"] == "deleted" {
				deleted++
			}
		}
		if deleted != 2 {
			t.Errorf("%d deleted records with all=true, want 2 (both refused creates)", deleted)
		}
		// Released into the deletion halo: still unusable...
		wantError(t, c.create("y", 1, 1024, 10, onNet), 507, "No free addresses")
		advance(8 * time.Second)
		wantError(t, c.create("z", 1, 1024, 10, onNet), 507, "No free addresses")
		// ...until its halo has passed.
		advance(2 * time.Second)
		c.mustCreate("w", 1, 1024, 10, onNet)
	})
}

// TestCapacityGuardModelsPlacementRace: with the guard modelled, a create
// right behind one that filled the node passes the (lagging) filters and
// is refused by the guard; once the first is created, the filter refuses.
func TestCapacityGuardModelsPlacementRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := bubbleSim(t, func(c *Config) {
			c.Nodes = 1
			c.CapacityGuard = true
			c.CreateTime = time.Second
		})
		c.mustCreate("a", 3, 1024, 10, nil)
		a := c.create("b", 2, 1024, 10, nil)
		m := wantError(t, a, 507, "guard", "stage", "transient")
		if m["stage"] != "capacity_guard" || m["transient"] != true || a.header.Get("Retry-After") != "15" {
			t.Errorf("refusal %s with Retry-After %q, want transient capacity_guard with 15", a.raw, a.header.Get("Retry-After"))
		}
		c.mustCreate("fits", 1, 1024, 10, nil) // the ledger still has room for one

		advance(time.Second)
		m = wantError(t, c.create("c", 1, 1024, 10, nil), 507, "idle CPU", "stage", "transient")
		if m["stage"] != "sufficient_idle_cpu" {
			t.Errorf("after the creates completed, stage %v, want sufficient_idle_cpu", m["stage"])
		}

		// Switched off, the filters read the ledger and never race.
		srv.SetCapacityGuard(false)
		c.do("DELETE", "/instances/fits", nil)
		c.do("DELETE", "/instances/a", nil)
		advance(6 * time.Second)
		c.mustCreate("d", 4, 1024, 10, nil)
		m = wantError(t, c.create("e", 1, 1024, 10, nil), 507, "idle CPU", "stage", "transient")
		if m["stage"] != "sufficient_idle_cpu" {
			t.Errorf("guard off: stage %v, want sufficient_idle_cpu", m["stage"])
		}
	})
}

// TestExpiredToken: API clients (Accept: application/json) get a 401 for an
// expired token; anything else gets the real server's 302 to the login page.
func TestExpiredToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(c *Config) { c.TokenTTL = time.Minute })
		if a := c.do("GET", "/instances", nil); a.status != http.StatusOK {
			t.Fatalf("fresh token: %d %s", a.status, a.raw)
		}
		advance(59 * time.Second)
		if a := c.do("GET", "/instances", nil); a.status != http.StatusOK {
			t.Fatalf("token at 59s of a 1m TTL: %d %s", a.status, a.raw)
		}
		advance(time.Second)
		wantError(t, c.do("GET", "/instances", nil), 401, "expired")

		a := c.do("GET", "/instances", nil, "Accept", "")
		if a.status != http.StatusFound || a.header.Get("Location") != "/" {
			t.Errorf("expired token without Accept: %d Location %q, want 302 to /", a.status, a.header.Get("Location"))
		}
		if a.header.Get("X-Request-ID") == "" {
			t.Error("no X-Request-ID on the 302")
		}
		a = c.do("GET", "/instances", nil, "Accept", "text/html")
		if a.status != http.StatusFound {
			t.Errorf("expired token with Accept: text/html: %d, want 302", a.status)
		}
		// A token that was never issued is a malformed JWT: 401 for API
		// clients, 302 without Accept, as Flask-JWT-Extended answers.
		wantError(t, c.do("GET", "/instances", nil, "Authorization", "Bearer nope"), 401, "invalid JWT in Authorization header")
		if a := c.do("GET", "/instances", nil, "Accept", "", "Authorization", "Bearer nope"); a.status != http.StatusFound {
			t.Errorf("unknown token without Accept: %d, want 302", a.status)
		}

		c.login()
		if a := c.do("GET", "/instances", nil); a.status != http.StatusOK {
			t.Errorf("after logging in again: %d %s", a.status, a.raw)
		}
	})
}

// TestNetworkDeleteWaitsForInterfaces: network delete answers 200 with the
// view; with interfaces left it is delete-wait until the last goes
// (network.py NetworkEndpoint.delete, da448b1a).
func TestNetworkDeleteWaitsForInterfaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(c *Config) { c.CreateTime = time.Second; c.TeardownLag = 0; c.NetworkDeployTime = time.Second })
		n := c.mustNetwork("net", "10.4.0.0/24")
		advance(time.Second)
		c.mustCreate("a", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		a := c.do("DELETE", "/networks/net", nil)
		if a.status != http.StatusOK || a.obj(t)["state"] != "delete-wait" {
			t.Fatalf("delete network with an instance on it: %d %s, want 200 delete-wait", a.status, a.raw)
		}
		uuid := n["uuid"].(string)
		c.do("DELETE", "/instances/a", nil)
		if s := c.do("GET", "/networks/"+uuid, nil).obj(t)["state"]; s != "deleted" {
			t.Errorf("after its last instance went: %v, want deleted", s)
		}
		wantError(t, c.do("GET", "/networks/net", nil), 404, "not found")
		if l := c.do("GET", "/networks", nil).list(t); len(l) != 0 {
			t.Errorf("deleted network still listed: %v", l)
		}
		if l := c.do("GET", "/networks", map[string]any{"all": true}).list(t); len(l) != 1 {
			t.Errorf("all=true lists %d networks, want the deleted one", len(l))
		}

		m := c.mustNetwork("empty", "10.5.0.0/24")
		advance(time.Second)
		if a := c.do("DELETE", "/networks/empty", nil); a.status != http.StatusOK || a.obj(t)["state"] != "created" {
			t.Errorf("delete of an empty network: %d %s, want 200 with the view", a.status, a.raw)
		}
		advance(time.Second)
		if a := c.do("DELETE", "/networks/"+m["uuid"].(string), nil); a.status != http.StatusOK || strings.TrimSpace(string(a.raw)) != "null" {
			t.Errorf("second delete: %d %s, want 200 null", a.status, a.raw)
		}
	})
}
