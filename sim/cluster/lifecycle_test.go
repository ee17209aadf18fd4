package cluster

import (
	"net/http"
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
		if i["state"] != "initial" || i["power_state"] != "off" {
			t.Fatalf("new instance %v, want state initial, power off", i)
		}
		advance(499 * time.Millisecond)
		if s := stateOf(t, c, "web1"); s != "initial" {
			t.Errorf("at 499ms: %s, want initial", s)
		}
		advance(time.Millisecond)
		if s := stateOf(t, c, "web1"); s != "creating" {
			t.Errorf("at 500ms: %s, want creating", s)
		}
		advance(499 * time.Millisecond)
		if s := stateOf(t, c, "web1"); s != "creating" {
			t.Errorf("at 999ms: %s, want creating", s)
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
		if del.status != http.StatusOK || del.obj(t)["state"] != "deleted" {
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
		c.mustNetwork("net", "10.3.0.0/30")
		onNet := map[string]any{"network": []map[string]any{{"network_uuid": "net"}}}
		wantError(t, c.create("big", 5, 1024, 10, onNet), 507, "vCPU", "stage", "transient")
		if s := stateOf(t, c, "big"); s != "error" {
			t.Fatalf("refused create is %s, want error", s)
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
		// A token that was never issued is a 401 whatever the Accept.
		wantError(t, c.do("GET", "/instances", nil, "Accept", "", "Authorization", "Bearer nope"), 401, "invalid token")

		c.login()
		if a := c.do("GET", "/instances", nil); a.status != http.StatusOK {
			t.Errorf("after logging in again: %d %s", a.status, a.raw)
		}
	})
}

func TestNetworkDeleteIsAnOperation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(c *Config) { c.CreateTime = time.Second; c.TeardownLag = 0 })
		n := c.mustNetwork("net", "10.4.0.0/24")
		c.mustCreate("a", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		wantError(t, c.do("DELETE", "/networks/net", nil), 409, "delete them first")
		c.do("DELETE", "/instances/a", nil)

		a := c.do("DELETE", "/networks/net", nil)
		if a.status != http.StatusAccepted {
			t.Fatalf("delete network: %d %s, want 202", a.status, a.raw)
		}
		op := a.obj(t)
		if op["uuid"] != n["uuid"] || op["state"] != "deleting" || op["operation"] == "" || op["operation"] == nil {
			t.Errorf("202 body %v, want the network uuid, state deleting and an operation", op)
		}
		uuid := n["uuid"].(string)
		if s := c.do("GET", "/networks/"+uuid, nil).obj(t)["state"]; s != "deleting" {
			t.Errorf("straight after the delete: %v, want deleting", s)
		}
		advance(time.Second)
		if s := c.do("GET", "/networks/"+uuid, nil).obj(t)["state"]; s != "deleted" {
			t.Errorf("a second later: %v, want deleted", s)
		}
		wantError(t, c.do("GET", "/networks/net", nil), 404, "not found")
		if l := c.do("GET", "/networks", nil).list(t); len(l) != 0 {
			t.Errorf("deleted network still listed: %v", l)
		}
		if l := c.do("GET", "/networks", map[string]any{"all": true}).list(t); len(l) != 1 {
			t.Errorf("all=true lists %d networks, want the deleted one", len(l))
		}
	})
}
