package cluster

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestAuth(t *testing.T) {
	_, c := startSim(t, nil)
	anon := *c
	anon.token = ""

	wantError(t, anon.do("POST", "/auth", map[string]any{"namespace": "system", "key": "wrong"}), 401, "unauthorized")
	wantError(t, anon.do("POST", "/auth", map[string]any{"namespace": "other", "key": "demo"}), 401, "unauthorized")
	wantError(t, anon.do("POST", "/auth", map[string]any{"namespace": "system"}), 400, "required")
	wantError(t, anon.do("POST", "/auth", `{"namespace": "system", "key": 7}`), 400, `"key" must be a string`)

	a := anon.do("POST", "/auth", map[string]any{"namespace": "system", "key": "demo"})
	if a.status != http.StatusOK {
		t.Fatalf("login: %d %s", a.status, a.raw)
	}
	m := a.obj(t)
	tok, _ := m["access_token"].(string)
	if len(tok) < 32 || len(m) != 1 {
		t.Errorf("login answer %s, want only an opaque access_token", a.raw)
	}
	if again := anon.do("POST", "/auth", map[string]any{"namespace": "system", "key": "demo"}).obj(t)["access_token"]; again == tok {
		t.Error("two logins got the same token")
	}

	wantError(t, anon.do("GET", "/instances", nil), 401, "Authorization")
	wantError(t, anon.do("GET", "/instances", nil, "Authorization", "Basic abc"), 401, "Bearer")
	wantError(t, anon.do("GET", "/instances", nil, "Authorization", "Bearer nope"), 401, "invalid token")
	// A token that was never issued is a 401 even for a browser: only
	// expiry gets the 302.
	wantError(t, anon.do("GET", "/instances", nil, "Authorization", "Bearer nope", "Accept", ""), 401, "invalid token")
}

func TestRequestIDOnEveryAnswer(t *testing.T) {
	_, c := startSim(t, nil)
	for _, a := range []answer{
		c.do("GET", "/instances", nil),
		c.do("GET", "/nowhere", nil),
		c.do("PUT", "/instances", nil),
		c.do("GET", "/instances/missing", nil),
		c.do("POST", "/instances", "{"),
		c.do("GET", "/instances", nil, "Authorization", ""),
	} {
		if a.header.Get("X-Request-ID") == "" {
			t.Errorf("answer %d %s has no X-Request-ID", a.status, a.raw)
		}
	}
	if got := c.do("GET", "/instances", nil, "X-Request-ID", "ci-run-42").header.Get("X-Request-ID"); got != "ci-run-42" {
		t.Errorf("X-Request-ID %q, want the caller's ci-run-42 echoed", got)
	}
	if got := c.do("GET", "/instances", nil, "X-Request-ID", "bad id\twith tab").header.Get("X-Request-ID"); strings.Contains(got, " ") {
		t.Errorf("a hostile request id was echoed: %q", got)
	}
}

func TestRoutesAnswerJSON(t *testing.T) {
	_, c := startSim(t, nil)
	wantError(t, c.do("GET", "/nowhere", nil), 404, "no such API route")
	a := c.do("PUT", "/instances", nil)
	wantError(t, a, 405, "not allowed")
	if got := a.header.Get("Allow"); got != "GET, POST" {
		t.Errorf("Allow %q, want GET, POST", got)
	}
	c.mustCreate("a", 1, 1024, 10, nil)
	if got := c.do("DELETE", "/instances/a/events", nil).header.Get("Allow"); got != "GET" {
		t.Errorf("Allow on events %q, want GET", got)
	}
	wantError(t, c.do("POST", "/instances/a/explode", nil), 404, "no such API route")

	// The same routes answer under /api, as an API URL often ends in it.
	if l := c.do("GET", "/api/instances", nil); l.status != http.StatusOK || len(l.list(t)) != 1 {
		t.Errorf("GET /api/instances: %d %s", l.status, l.raw)
	}
	wantError(t, c.do("GET", "/apix/instances", nil), 404, "no such API route")
}

func TestInstanceRoutes(t *testing.T) {
	srv, c := startSim(t, func(c *Config) { c.CreateTime = 0 })
	body := map[string]any{
		"name": "web1", "cpus": 2, "memory": 2048,
		"disk":      []map[string]any{{"size": 20, "base": "debian:12", "bus": "virtio"}, {"type": "cdrom", "base": "https://example.invalid/x.iso"}},
		"ssh_key":   "ssh-ed25519 AAAAC3Nza test@example",
		"user_data": "I2Nsb3VkLWNvbmZpZw==",
		"placed_on": "node2",
		"metadata":  map[string]any{"tags": []string{"web"}, "owner": "ci"},
	}
	a := c.do("POST", "/instances", body)
	if a.status != http.StatusOK {
		t.Fatalf("create: %d %s", a.status, a.raw)
	}
	i := a.obj(t)
	for k, want := range map[string]any{
		"name": "web1", "namespace": "system", "cpus": 2.0, "memory": 2048.0, "node": "node2",
		"state": "initial", "ssh_key": "ssh-ed25519 AAAAC3Nza test@example", "user_data": "I2Nsb3VkLWNvbmZpZw==",
		"error_message": nil,
	} {
		if i[k] != want {
			t.Errorf("%s = %v, want %v", k, i[k], want)
		}
	}
	for _, k := range []string{"uuid", "disk_spec", "state_updated", "power_state", "metadata", "version"} {
		if _, ok := i[k]; !ok {
			t.Errorf("instance has no %s: %s", k, a.raw)
		}
	}
	disks := i["disk_spec"].([]any)
	if len(disks) != 2 || disks[0].(map[string]any)["size"] != 20.0 || disks[1].(map[string]any)["type"] != "cdrom" {
		t.Errorf("disk_spec %v", disks)
	}
	if md := i["metadata"].(map[string]any); md["owner"] != "ci" {
		t.Errorf("metadata %v lost the caller's keys", md)
	}
	uuid := i["uuid"].(string)
	if u := srv.NodeUsage()[1]; u.UsedCPUs != 2 || u.UsedDiskGiB != 20 {
		t.Errorf("node2 usage %+v, want 2 vCPUs and 20 GiB (cdroms take no disk)", u)
	}

	for _, ref := range []string{uuid, "web1"} {
		if got := c.do("GET", "/instances/"+ref, nil).obj(t)["uuid"]; got != uuid {
			t.Errorf("show %s gave %v", ref, got)
		}
	}
	wantError(t, c.do("GET", "/instances/nope", nil), 404, "instance not found")

	// Power actions once created (create time is zero).
	for _, step := range []struct{ action, power string }{
		{"poweroff", "off"}, {"poweron", "on"}, {"pause", "paused"}, {"unpause", "on"}, {"rebootsoft", "on"}, {"reboothard", "on"},
	} {
		a := c.do("POST", "/instances/web1/"+step.action, nil)
		if a.status != http.StatusOK || a.obj(t)["power_state"] != step.power {
			t.Errorf("%s: %d %s, want power_state %s", step.action, a.status, a.raw, step.power)
		}
	}
	c.do("POST", "/instances/web1/poweroff", nil)
	wantError(t, c.do("POST", "/instances/web1/pause", nil), 406, "power state is off")

	events := c.do("GET", "/instances/web1/events", nil).list(t)
	var ops []string
	for _, e := range events {
		for _, k := range []string{"timestamp", "fqdn", "operation", "phase", "duration", "message"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("event without %s: %v", k, e)
			}
		}
		ops = append(ops, e["operation"].(string))
	}
	for _, want := range []string{"create", "schedule", "power"} {
		if !slices.Contains(ops, want) {
			t.Errorf("events lack a %s operation: %v", want, ops)
		}
	}

	// Duplicate names: a ref by name becomes ambiguous.
	c.mustCreate("web1", 1, 1024, 10, nil)
	wantError(t, c.do("GET", "/instances/web1", nil), 400, "use the UUID")

	d := c.do("DELETE", "/instances/"+uuid, nil)
	if d.status != http.StatusOK || d.obj(t)["state"] != "deleted" {
		t.Errorf("delete: %d %s", d.status, d.raw)
	}
	wantError(t, c.do("DELETE", "/instances/"+uuid, nil), 404, "not found")
	wantError(t, c.do("POST", "/instances/"+uuid+"/poweron", nil), 404, "not found")
	if got := c.do("GET", "/instances/"+uuid, nil).obj(t)["state"]; got != "deleted" {
		t.Errorf("a deleted instance by uuid reads %v, want deleted", got)
	}
	if l := c.do("GET", "/instances", nil).list(t); len(l) != 1 {
		t.Errorf("listing shows %d instances, want the one live web1", len(l))
	}
	if l := c.do("GET", "/instances", map[string]any{"all": true}).list(t); len(l) != 2 {
		t.Errorf("listing with all shows %d instances, want 2", len(l))
	}
}

func TestInstanceNotReadyForPowerActions(t *testing.T) {
	_, c := startSim(t, nil) // create time one hour: stays initial
	c.mustCreate("slow", 1, 1024, 10, nil)
	wantError(t, c.do("POST", "/instances/slow/poweroff", nil), 406, "not ready (initial)")
}

func TestNetworkRoutes(t *testing.T) {
	_, c := startSim(t, nil)
	n := c.mustNetwork("net1", "10.5.0.0/24")
	for k, want := range map[string]any{"name": "net1", "namespace": "system", "netblock": "10.5.0.0/24", "provide_dhcp": true, "provide_nat": false, "state": "created"} {
		if n[k] != want {
			t.Errorf("%s = %v, want %v", k, n[k], want)
		}
	}
	if _, ok := n["vxid"].(float64); !ok {
		t.Errorf("no vxid: %v", n)
	}
	if got := c.do("GET", "/networks/net1", nil).obj(t)["uuid"]; got != n["uuid"] {
		t.Errorf("show by name gave %v", got)
	}
	if l := c.do("GET", "/networks", nil).list(t); len(l) != 1 {
		t.Errorf("%d networks listed, want 1", len(l))
	}
	for _, tc := range []struct {
		body any
		msg  string
	}{
		{map[string]any{"name": "x", "netblock": "10.0.0.1/24"}, "did you mean 10.0.0.0/24"},
		{map[string]any{"name": "x", "netblock": "banana"}, "not an IPv4 CIDR"},
		{map[string]any{"name": "x", "netblock": "10.0.0.0/31"}, "prefix length"},
		{map[string]any{"name": "x", "netblock": "fd00::/64"}, "not an IPv4 CIDR"},
		{map[string]any{"name": "x"}, "netblock is required"},
		{map[string]any{"name": "bad_name", "netblock": "10.0.0.0/24"}, "not usable"},
		{map[string]any{"name": "x", "netblock": "10.0.0.0/24", "provide_dhcp": "yes"}, `"provide_dhcp" must be a boolean`},
	} {
		wantError(t, c.do("POST", "/networks", tc.body), 400, tc.msg)
	}
	wantError(t, c.do("POST", "/networks", map[string]any{"name": "x", "netblock": "10.9.0.0/24", "namespace": "ghost"}), 404, "namespace")

	// A requested address: outside the block, reserved, or taken.
	onNet := func(addr string) map[string]any {
		return map[string]any{"network": []map[string]any{{"network_uuid": "net1", "address": addr}}}
	}
	wantError(t, c.create("a", 1, 1024, 10, onNet("10.6.0.5")), 400, "outside")
	wantError(t, c.create("a", 1, 1024, 10, onNet("10.5.0.1")), 400, "router")
	c.mustCreate("a", 1, 1024, 10, onNet("10.5.0.5"))
	wantError(t, c.create("b", 1, 1024, 10, onNet("10.5.0.5")), 409, "in use")
	wantError(t, c.create("b", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": "nonet"}}}), 404, "network nonet not found")
	c.mustNetwork("net1", "10.8.0.0/24")
	wantError(t, c.create("b", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": "net1"}}}), 400, "2 networks are named net1")
}

func TestNodesAndNamespaces(t *testing.T) {
	_, c := startSim(t, func(c *Config) {
		c.NonHypervisorNodes = 1
		c.NodeTags = map[string][]string{"node1": {"ssd", "gpu"}}
	})
	c.mustCreate("a", 3, 2048, 30, map[string]any{"placed_on": "node1"})
	nodes := c.do("GET", "/nodes", nil).list(t)
	if len(nodes) != 3 {
		t.Fatalf("%d nodes, want 2 hypervisors and control1", len(nodes))
	}
	n1 := nodes[0]
	for k, want := range map[string]any{"name": "node1", "is_hypervisor": true, "cpu_max": 4.0, "cpu_used": 3.0, "memory_max": 8192.0, "memory_used": 2048.0, "disk_max": 100.0, "disk_used": 30.0, "state": "created"} {
		if n1[k] != want {
			t.Errorf("node1 %s = %v, want %v", k, n1[k], want)
		}
	}
	if tags := n1["tags"].([]any); len(tags) != 2 || tags[0] != "ssd" {
		t.Errorf("node1 tags %v", tags)
	}
	for _, k := range []string{"ip", "lastseen", "version"} {
		if _, ok := n1[k]; !ok {
			t.Errorf("node has no %s", k)
		}
	}
	if nodes[2]["name"] != "control1" || nodes[2]["is_hypervisor"] != false {
		t.Errorf("third node %v, want control1, not a hypervisor", nodes[2])
	}
	if got := c.do("GET", "/nodes/node2", nil).obj(t)["name"]; got != "node2" {
		t.Errorf("show node2 gave %v", got)
	}
	wantError(t, c.do("GET", "/nodes/node9", nil), 404, "node9")

	ns := c.do("GET", "/auth/namespaces", nil).list(t)
	if len(ns) != 1 || ns[0]["name"] != "system" {
		t.Fatalf("namespaces %v, want system", ns)
	}
	if keys := ns[0]["key_names"].([]any); len(keys) != 1 || keys[0] != "deploy" {
		t.Errorf("key_names %v", keys)
	}
	if _, ok := ns[0]["metadata"].(map[string]any); !ok {
		t.Errorf("namespace metadata %v, want an object", ns[0]["metadata"])
	}
}

// TestNonAdminNamespace: a namespace other than system sees only its own
// objects and may not list nodes.
func TestNonAdminNamespace(t *testing.T) {
	_, c := startSim(t, func(c *Config) { c.AuthNamespace = "ci"; c.AuthKey = "k" })
	i := c.mustCreate("a", 1, 1024, 10, nil)
	if i["namespace"] != "ci" {
		t.Errorf("instance namespace %v, want ci", i["namespace"])
	}
	wantError(t, c.create("b", 1, 1024, 10, map[string]any{"namespace": "system"}), 404, "namespace system not found")
	wantError(t, c.do("GET", "/nodes", nil), 401, "unauthorized")
	ns := c.do("GET", "/auth/namespaces", nil).list(t)
	if len(ns) != 1 || ns[0]["name"] != "ci" {
		t.Errorf("namespaces %v, want only ci", ns)
	}
}
