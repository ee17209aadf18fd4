package cluster

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// Namespaces, keys, metadata and trust, written from
// shakenfist/external_api/auth.py (da448b1a for 2024, @0209b9ca for 2026).

// loginAs is a second client of the same server for another namespace/key.
func loginAs(t *testing.T, c *apiClient, ns, key string) *apiClient {
	t.Helper()
	o := &apiClient{t: t, base: c.base, hc: c.hc, ns: ns, key: key}
	o.login()
	return o
}

func both(t *testing.T, fn func(t *testing.T, gen string)) {
	for _, gen := range []string{Generation2024, Generation2026} {
		t.Run(gen, func(t *testing.T) { fn(t, gen) })
	}
}

func nullBody(t *testing.T, a answer) {
	t.Helper()
	if a.status != 200 || string(bytes.TrimSpace(a.raw)) != "null" {
		t.Errorf("answer %d %s, want 200 null", a.status, a.raw)
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		a := c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team", "key_name": "ci", "key": "s3cret"})
		if a.status != 200 {
			t.Fatalf("create: %d %s", a.status, a.raw)
		}
		v := a.obj(t)
		wantKeys(t, "namespace", v, "name", "state", "metadata", "version", "keys", "trust")
		if v["name"] != "team" || v["state"] != "created" || fmt.Sprint(v["keys"]) != "[ci]" || fmt.Sprint(v["trust"]) != "map[full:[system]]" {
			t.Errorf("created namespace %s", a.raw)
		}
		if strings.Contains(string(a.raw), "s3cret") {
			t.Error("the answer holds the key's secret")
		}
		wantError(t, c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team"}), 403, "namespace exists")
		wantError(t, c.do("POST", "/auth/namespaces", map[string]any{}), 400, "no namespace specified")

		team := loginAs(t, c, "team", "s3cret")
		// A non-admin may not create namespaces (401, not 403).
		wantError(t, team.do("POST", "/auth/namespaces", map[string]any{"namespace": "other"}), 401, "unauthorized")
		// team sees itself; system sees both.
		names := func(cl *apiClient) []string {
			var out []string
			for _, n := range cl.do("GET", "/auth/namespaces", nil).list(t) {
				out = append(out, n["name"].(string))
			}
			return out
		}
		if got := names(team); !slices.Equal(got, []string{"team"}) {
			t.Errorf("team lists %v", got)
		}
		if got := names(c); !slices.Equal(got, []string{"system", "team"}) {
			t.Errorf("system lists %v", got)
		}
		if a := team.do("GET", "/auth/namespaces/team", nil); a.status != 200 || a.obj(t)["name"] != "team" {
			t.Errorf("team shows itself: %d %s", a.status, a.raw)
		}
		wantError(t, team.do("GET", "/auth/namespaces/system", nil), 404, "namespace not found")
		wantError(t, c.do("GET", "/auth/namespaces/nosuch", nil), 404, "namespace not found")

		// Refused while it holds an instance, then a network.
		i := team.mustCreate("web1", 1, 1024, 10, nil)
		wantError(t, c.do("DELETE", "/auth/namespaces/team", nil), 400, "you cannot delete a namespace with instances")
		team.do("DELETE", "/instances/"+i["uuid"].(string), nil)
		team.mustNetwork("net1", "10.9.0.0/24")
		wantError(t, c.do("DELETE", "/auth/namespaces/team", nil), 400, "you cannot delete a namespace with networks")
		wantError(t, team.do("DELETE", "/auth/namespaces/team", nil), 401, "unauthorized")
		wantError(t, c.do("DELETE", "/auth/namespaces/system", nil), 403, "you cannot delete the system namespace")
	})
}

// TestNamespaceCleanThenDelete is sf-client's namespace clean: delete all
// instances, all networks (clean_wait) and all artifacts, then delete.
func TestNamespaceCleanThenDelete(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team", "key_name": "ci", "key": "s3cret"})
		team := loginAs(t, c, "team", "s3cret")
		n := team.mustNetwork("net1", "10.9.0.0/24")
		i := team.mustCreate("web1", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		team.mustCreate("web2", 1, 1024, 10, nil)
		// A token of another namespace cannot clean this one.
		wantError(t, team.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "system"}), 401, "you cannot delete other namespaces")
		a := c.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "team"})
		if a.status != 200 || !strings.Contains(string(a.raw), i["uuid"].(string)) || len(a.list2(t)) != 2 {
			t.Fatalf("delete all instances: %d %s", a.status, a.raw)
		}
		a = c.do("DELETE", "/networks", map[string]any{"confirm": true, "namespace": "team", "clean_wait": true})
		if a.status != 200 && a.status != 202 {
			t.Fatalf("delete all networks: %d %s", a.status, a.raw)
		}
		if a := c.do("DELETE", "/artifacts", map[string]any{"confirm": true, "namespace": "team"}); a.status != 200 {
			t.Fatalf("delete all artifacts: %d %s", a.status, a.raw)
		}
		nullBody(t, c.do("DELETE", "/auth/namespaces/team", nil))
		// The namespace's tokens stop working, it can no longer log in,
		// and its name cannot be taken again (from_db still finds it).
		wantError(t, team.do("GET", "/instances", nil), 401, "")
		wantError(t, c.do("POST", "/auth", map[string]any{"namespace": "team", "key": "s3cret"}), 404, "namespace not found")
		wantError(t, c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team"}), 403, "namespace exists")
	})
}

// list2 decodes a JSON list of anything.
func (a answer) list2(t testing.TB) []any {
	t.Helper()
	var l []any
	if err := jsonUnmarshal(a.raw, &l); err != nil {
		t.Fatalf("answer %d is not a JSON list: %v: %s", a.status, err, a.raw)
	}
	return l
}

func TestNamespaceKeys(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team"})
		a := c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "ci", "key": "one"})
		if a.status != 200 || string(bytes.TrimSpace(a.raw)) != `"ci"` {
			t.Fatalf("add key: %d %s, want the key name", a.status, a.raw)
		}
		if got := c.do("GET", "/auth/namespaces/team/keys", nil).raw; string(bytes.TrimSpace(got)) != `["ci"]` {
			t.Errorf("keys %s", got)
		}
		old := loginAs(t, c, "team", "one")
		// Adding the same name rotates the key: the old token stops.
		c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "ci", "key": "two"})
		wantError(t, old.do("GET", "/instances", nil), 401, "")
		wantError(t, c.do("POST", "/auth", map[string]any{"namespace": "team", "key": "one"}), 401, "unauthorized")
		team := loginAs(t, c, "team", "two")
		// Keys of one's own namespace can be managed without system.
		if a := team.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "spare", "key": "three"}); a.status != 200 {
			t.Errorf("own namespace add key: %d %s", a.status, a.raw)
		}
		wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key": "x"}), 400, "no key name specified")
		wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "_service_key_x", "key": "x"}), 403, "illegal key name")
		nullBody(t, c.do("DELETE", "/auth/namespaces/team/keys/spare", nil))
		wantError(t, c.do("DELETE", "/auth/namespaces/team/keys/spare", nil), 404, "key name not found in namespace")
		// sf-client's update-key PUTs the collection: no such method.
		if a := c.do("PUT", "/auth/namespaces/team/keys", map[string]any{"key_name": "ci", "key": "x"}); a.status != 405 {
			t.Errorf("PUT .../keys: %d %s, want Flask-RESTful's 405", a.status, a.raw)
		}
		up := c.do("PUT", "/auth/namespaces/team/keys/ci", map[string]any{"key": "four"})
		switch gen {
		case Generation2024: // lacks @arg_is_namespace: always a 500
			wantError(t, up, 500, "AttributeError")
		case Generation2026:
			if up.status != 200 || string(bytes.TrimSpace(up.raw)) != `"ci"` {
				t.Errorf("2026 key update: %d %s", up.status, up.raw)
			}
			loginAs(t, c, "team", "four")
			wantError(t, c.do("PUT", "/auth/namespaces/team/keys/nosuch", map[string]any{"key": "x"}), 404, "key does not exist")
			wantError(t, team.do("PUT", "/auth/namespaces/team/keys/ci", map[string]any{"key": "x"}), 401, "unauthorized")
		}
	})
}

func TestNamespaceKeys2026(t *testing.T) {
	_, c := startSim(t, gen2026)
	c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team"})
	// No secret: the cluster generates one and answers it once.
	a := c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "gen"})
	m := a.obj(t)
	secret, _ := m["key"].(string)
	if a.status != 200 || m["key_name"] != "gen" || !strings.HasPrefix(secret, "sfk_") {
		t.Fatalf("generated key: %d %s", a.status, a.raw)
	}
	loginAs(t, c, "team", secret)
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "x", "key": "sfk_mine"}), 400, "reserved for cluster generated keys")
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "x", "key": strings.Repeat("k", 73)}), 422, "keys cannot be longer than 72 characters")
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "service_key", "key": "x"}), 403, "illegal key name")
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "x", "key": "y", "expiry": "tomorrow"}), 400, "expiry is not a number")
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "x", "key": "y", "expiry": true}), 400, "expiry is not a number")
	wantError(t, c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "x", "key": "y", "expiry": 1000}), 400, "expiry must be in the future")
	future := time.Now().Add(time.Hour).Unix()
	if a := c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "temp", "key": "y", "expiry": future}); a.status != 200 {
		t.Fatalf("key with expiry: %d %s", a.status, a.raw)
	}
	loginAs(t, c, "team", "y")
	// 2024 has no expiry parameter at all.
	_, old := startSim(t, nil)
	wantError(t, old.do("POST", "/auth/namespaces/system/keys", map[string]any{"key_name": "x", "key": "y", "expiry": future}), 400, "unexpected keyword argument 'expiry'")
}

func TestNamespaceMetadataAndTrust(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "team", "key_name": "ci", "key": "s"})
		c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ops", "key_name": "ci", "key": "o"})
		nullBody(t, c.do("PUT", "/auth/namespaces/team/metadata/owner", map[string]any{"value": "alice"}))
		nullBody(t, c.do("POST", "/auth/namespaces/team/metadata", map[string]any{"key": "tier", "value": "gold"}))
		if md := c.do("GET", "/auth/namespaces/team/metadata", nil).obj(t); md["owner"] != "alice" || md["tier"] != "gold" {
			t.Errorf("metadata %v", md)
		}
		wantError(t, c.do("PUT", "/auth/namespaces/team/metadata/owner", map[string]any{"value": ""}), 400, "no value specified")
		nullBody(t, c.do("DELETE", "/auth/namespaces/team/metadata/owner", nil))
		if md := c.do("GET", "/auth/namespaces/team/metadata", nil).obj(t); len(md) != 1 {
			t.Errorf("after delete: %v", md)
		}
		if v := c.do("GET", "/auth/namespaces/team", nil).obj(t); fmt.Sprint(v["metadata"]) != "map[tier:gold]" {
			t.Errorf("view metadata %v", v["metadata"])
		}

		ops := loginAs(t, c, "ops", "o")
		wantError(t, ops.do("GET", "/auth/namespaces/team", nil), 404, "namespace not found")
		a := c.do("POST", "/auth/namespaces/team/trust", map[string]any{"external_namespace": "ops"})
		if a.status != 200 || fmt.Sprint(a.obj(t)["trust"]) != "map[full:[system ops]]" {
			t.Fatalf("add trust: %d %s", a.status, a.raw)
		}
		if a := ops.do("GET", "/auth/namespaces/team", nil); a.status != 200 {
			t.Errorf("trusted ops shows team: %d %s", a.status, a.raw)
		}
		wantError(t, c.do("POST", "/auth/namespaces/team/trust", map[string]any{}), 400, "no external namespace specified")
		a = c.do("DELETE", "/auth/namespaces/team/trust/ops", nil)
		if a.status != 200 || fmt.Sprint(a.obj(t)["trust"]) != "map[full:[system]]" {
			t.Errorf("remove trust: %d %s", a.status, a.raw)
		}
		// system's trust cannot be removed.
		if a := c.do("DELETE", "/auth/namespaces/team/trust/system", nil); fmt.Sprint(a.obj(t)["trust"]) != "map[full:[system]]" {
			t.Errorf("removing system's trust: %s", a.raw)
		}
		wantError(t, ops.do("GET", "/auth/namespaces/team", nil), 404, "namespace not found")
	})
}

func TestNamespaceAnswersAreJSON(t *testing.T) {
	_, c := startSim(t, gen2026)
	a := c.do("GET", "/auth/namespaces/system/keys", nil)
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		t.Errorf("keys: %d %q", a.status, a.header.Get("Content-Type"))
	}
}
