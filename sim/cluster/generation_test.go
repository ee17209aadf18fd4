package cluster

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Tests of the 2026 server (Config.Generation = Generation2026), each
// written from the source the behaviour cites, and of what stays 2024.

func TestGenerationSchedulingTexts2026(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mutate        func(*Config)
		cpus, mem, gb int
		extra         map[string]any
		msg, stage    string
		transient     bool
	}{
		{"idle cpu", nil, 3, 1024, 10, nil, "No nodes remaining at scheduling stage sufficient_idle_cpu", "sufficient_idle_cpu", true},
		{"cpu max", func(c *Config) { c.CPUOvercommit = 4 }, 5, 1024, 10, nil, "No nodes remaining at scheduling stage cpu_max_per_instance", "cpu_max_per_instance", false},
		{"idle memory", nil, 1, 9000, 10, nil, "No nodes remaining at scheduling stage sufficient_idle_memory", "sufficient_idle_memory", true},
		{"free disk", nil, 1, 1024, 101, nil, "No nodes remaining at scheduling stage sufficient_free_disk", "sufficient_free_disk", true},
		{"pre_schedule", func(c *Config) { c.Nodes = 0 }, 1, 1024, 10, nil, "No nodes remaining at scheduling stage pre_schedule", "pre_schedule", false},
		{"is_hypervisor", func(c *Config) { c.NonHypervisorNodes = 1 }, 1, 1024, 10, map[string]any{"placed_on": "control1"}, "No nodes remaining at scheduling stage is_hypervisor", "is_hypervisor", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := startSim(t, func(cfg *Config) {
				gen2026(cfg)
				if tc.mutate != nil {
					tc.mutate(cfg)
				}
			})
			if tc.stage == "sufficient_idle_cpu" { // fill both nodes' vCPUs first
				c.mustCreate("fill1", 2, 512, 1, nil)
				c.mustCreate("fill2", 2, 512, 1, nil)
			}
			a := c.create("web1", tc.cpus, tc.mem, tc.gb, tc.extra)
			m := wantError(t, a, 507, tc.msg, "stage", "transient")
			if m["error"] != tc.msg || m["stage"] != tc.stage || m["transient"] != tc.transient {
				t.Errorf("refusal %s, want error %q stage %s transient %v", a.raw, tc.msg, tc.stage, tc.transient)
			}
			if got := a.header.Get("Retry-After"); (got == "15") != tc.transient {
				t.Errorf("Retry-After %q with transient %v", got, tc.transient)
			}
		})
	}
}

func TestGenerationGuardText2026(t *testing.T) {
	srv, c := startSim(t, func(cfg *Config) { gen2026(cfg); cfg.CapacityGuard = true })
	c.mustCreate("a", 4, 1024, 10, nil)
	c.mustCreate("b", 4, 1024, 10, nil)
	_ = srv
	// Both nodes' metrics still read idle, so the filters pass both and
	// the guard refuses both.
	m := wantError(t, c.create("c", 4, 1024, 10, nil), 507, "", "stage", "transient")
	if m["error"] != "no node had capacity for this instance, 2 candidates refused it" || m["stage"] != "capacity_guard" || m["transient"] != true {
		t.Errorf("guard refusal %v", m)
	}
}

func TestGenerationAffinity2026(t *testing.T) {
	tags := func(cfg *Config) {
		gen2026(cfg)
		cfg.NodeTags = map[string][]string{"node1": {"ssd"}, "node2": {"ssd", "db"}}
	}
	t.Run("409 names the stage and the sorted constraints", func(t *testing.T) {
		_, c := startSim(t, tags)
		aff := map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu", "fast"}, "require_without_tag": []string{"db"}}}
		m := wantError(t, c.create("a", 1, 1024, 10, map[string]any{"metadata": aff}), 409, "")
		want := "No nodes remaining at scheduling stage affinity_constraints: require_with_tag=['fast', 'gpu'], require_without_tag=['db']"
		if m["error"] != want {
			t.Errorf("error %q\nwant  %q", m["error"], want)
		}
	})
	t.Run("a full cluster with an impossible constraint is the resource 507", func(t *testing.T) {
		_, c := startSim(t, tags)
		c.mustCreate("fill1", 4, 512, 1, nil)
		c.mustCreate("fill2", 4, 512, 1, nil)
		aff := map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu"}}}
		wantError(t, c.create("a", 1, 1024, 10, map[string]any{"metadata": aff}), 507, "sufficient_idle_cpu", "stage", "transient")
	})
	t.Run("2024 checks affinity first", func(t *testing.T) {
		_, c := startSim(t, func(cfg *Config) { cfg.NodeTags = map[string][]string{"node1": {"ssd"}} })
		aff := map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu"}}}
		wantError(t, c.create("a", 5, 1024, 10, map[string]any{"metadata": aff}), 409, "hard affinity")
	})
	t.Run("binary form places and prefers", func(t *testing.T) {
		_, c := startSim(t, tags)
		aff := map[string]any{"affinity": map[string]any{"require_with_tag": []string{"ssd"}, "prefer_with_tag": []string{"db"}}}
		i := c.mustCreate("a", 1, 1024, 10, map[string]any{"metadata": aff})
		if i["node"] != nodeUUID("node2") {
			t.Errorf("placed on %v, want node2 (%s), the one with the preferred tag", i["node"], nodeUUID("node2"))
		}
		aff = map[string]any{"affinity": map[string]any{"prefer_without_tag": []string{"db"}}}
		i = c.mustCreate("b", 1, 1024, 10, map[string]any{"metadata": aff})
		if i["node"] != nodeUUID("node1") {
			t.Errorf("placed on %v, want node1 (%s), the one without db", i["node"], nodeUUID("node1"))
		}
	})
	t.Run("weighted form accepted with an audit event", func(t *testing.T) {
		_, c := startSim(t, tags)
		i := c.mustCreate("a", 1, 1024, 10, map[string]any{"metadata": map[string]any{"affinity": map[string]any{"ssd": 10}}})
		ev := c.do("GET", "/instances/"+i["uuid"].(string)+"/events", nil).list(t)
		found := false
		for _, e := range ev {
			found = found || strings.Contains(e["message"].(string), "deprecated weighted affinity")
		}
		if !found {
			t.Errorf("no deprecation audit event in %v", ev)
		}
	})
	for _, tc := range []struct {
		name string
		aff  map[string]any
		msg  string
	}{
		{"boolean", map[string]any{"ssd": true}, "metadata.affinity.ssd"},
		{"mixed forms", map[string]any{"ssd": 1, "require_with_tag": []string{"gpu"}}, "not both"},
		{"empty tag", map[string]any{"prefer_with_tag": []string{""}}, "metadata.affinity.prefer_with_tag[0]"},
		{"not a list", map[string]any{"require_without_tag": "db"}, "metadata.affinity.require_without_tag"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			_, c := startSim(t, tags)
			wantError(t, c.create("a", 1, 1024, 10, map[string]any{"metadata": map[string]any{"affinity": tc.aff}}), 400, tc.msg)
		})
	}
}

func TestGenerationValidation2026(t *testing.T) {
	_, c := startSim(t, gen2026)
	disk := []map[string]any{{"size": 10, "base": "debian:12"}}
	for _, tc := range []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"unknown key", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "foo": 1}, "foo: Unknown field."},
		{"body uuid", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "uuid": "x"}, "uuid: Unknown field."},
		{"cpus a string", map[string]any{"name": "a", "cpus": "two", "memory": 1024, "disk": disk}, "cpus: Not a valid integer."},
		{"negative memory", map[string]any{"name": "a", "cpus": 1, "memory": -1, "disk": disk}, "memory: Must be greater than or equal to 0."},
		{"disk size a string", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": []map[string]any{{"size": "big"}}}, "disk[0].size: Not a valid integer."},
		{"disk unknown key", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": []map[string]any{{"size": 1, "colour": "red"}}}, "disk[0].colour: Unknown field."},
		{"disk without size or base", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": []map[string]any{{"size": 0, "base": "none"}}}, "disk[0]:"},
		{"disk type", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": []map[string]any{{"size": 1, "type": "floppy"}}}, "disk[0].type"},
		{"network without uuid", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "network": []map[string]any{{"address": "10.0.0.5"}}}, "network[0].network_uuid: Missing data for required field."},
		{"network model", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "network": []map[string]any{{"network_uuid": "n", "model": "virtio net"}}}, "network[0].model"},
		{"video vdi", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "video": map[string]any{"model": "cirrus", "memory": 16384, "vdi": "rdp"}}, "video.vdi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := wantError(t, c.do("POST", "/instances", tc.body), 400, tc.msg)
			if !strings.HasPrefix(m["error"].(string), strings.SplitN(tc.msg, ":", 2)[0]) {
				t.Errorf("error %q does not start with the parameter", m["error"])
			}
		})
	}
	// JSON null means "not supplied".
	c.mustCreate("nulls", 1, 1024, 10, map[string]any{"ssh_key": nil, "placed_on": nil})
	// Unknown keys are refused on other routes as well.
	wantError(t, c.do("GET", "/instances", map[string]any{"everything": true}), 400, "everything: Unknown field.")
	// 2024 still answers Python's TypeError.
	_, old := startSim(t, nil)
	wantError(t, old.do("POST", "/instances", map[string]any{"name": "a", "cpus": 1, "memory": 1024, "disk": disk, "foo": 1}), 400,
		"InstancesEndpoint.post() got an unexpected keyword argument 'foo'")
}

func TestGenerationBodyLimits2026(t *testing.T) {
	_, c := startSim(t, gen2026)
	// A chunked body: no Content-Length, so net/http sends it chunked.
	req, err := http.NewRequest("POST", c.base+"/instances", io.MultiReader(strings.NewReader(`{"name": "a"`), strings.NewReader(`}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, answer{status: resp.StatusCode, header: resp.Header, raw: raw}, 411, "chunked")
	huge := bytes.Repeat([]byte("x"), maxBodyBytes+10)
	wantError(t, c.do("POST", "/instances", append(append([]byte(`{"name": "`), huge...), '"', '}')), 413, "limit")
}

func TestGenerationCapabilities(t *testing.T) {
	for _, tc := range []struct {
		gen  string
		want bool
	}{{Generation2024, false}, {Generation2026, true}} {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = tc.gen })
		a := c.do("GET", "/", nil)
		if a.status != 200 || strings.Contains(string(a.raw), "network-delete-async") != tc.want {
			t.Errorf("%s: GET / %d, network-delete-async advertised %v, want %v", tc.gen, a.status, !tc.want, tc.want)
		}
	}
}

func TestGenerationNodeUUIDs2026(t *testing.T) {
	_, c := startSim(t, gen2026)
	nodes := c.do("GET", "/nodes", nil).list(t)
	if len(nodes) != 2 || nodes[0]["uuid"] != nodeUUID("node1") || nodes[0]["name"] != "node1" {
		t.Fatalf("nodes %v, want node1 with its UUID %s", nodes, nodeUUID("node1"))
	}
	byName := c.mustCreate("a", 1, 1024, 10, map[string]any{"placed_on": "node2"})
	byUUID := c.mustCreate("b", 1, 1024, 10, map[string]any{"placed_on": nodeUUID("node2")})
	for _, i := range []map[string]any{byName, byUUID} {
		if i["node"] != nodeUUID("node2") || i["requested_placement"] != nodeUUID("node2") {
			t.Errorf("%s: node %v, requested_placement %v, want both %s", i["name"], i["node"], i["requested_placement"], nodeUUID("node2"))
		}
	}
	if a := c.do("GET", "/nodes/"+nodeUUID("node1"), nil); a.status != 200 || a.obj(t)["name"] != "node1" {
		t.Errorf("node by UUID: %d %s", a.status, a.raw)
	}
	wantError(t, c.create("c", 1, 1024, 10, map[string]any{"placed_on": "node9"}), 404, "Specified node node9 does not exist")
	// 2024 keeps names.
	_, old := startSim(t, nil)
	if i := old.mustCreate("a", 1, 1024, 10, map[string]any{"placed_on": "node2"}); i["node"] != "node2" {
		t.Errorf("2024 node %v, want node2", i["node"])
	}
}

func TestGenerationPower2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { gen2026(cfg); cfg.CreateTime = time.Second })
		c.mustCreate("a", 1, 1024, 10, nil)
		advance(2 * time.Second)
		if a := c.do("POST", "/instances/a/pause", nil); a.status != 200 {
			t.Fatalf("pause: %d %s", a.status, a.raw)
		}
		wantError(t, c.do("POST", "/instances/a/poweron", nil), 409, "Invalid lifecycle state: you cannot power on a paused instance; unpause it instead")
	})
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) {
			gen2026(cfg)
			cfg.CreateTime = time.Second
			cfg.PowerFault = "libvirt: domain not found"
		})
		c.mustCreate("a", 1, 1024, 10, nil)
		advance(2 * time.Second)
		m := wantError(t, c.do("POST", "/instances/a/poweron", nil), 500, "")
		if m["error"] != "instance failed to power on: libvirt: domain not found" {
			t.Errorf("power on failure %v", m)
		}
		wantError(t, c.do("POST", "/instances/a/poweroff", nil), 500, "instance failed to power off: libvirt")
	})
	synctest.Test(t, func(t *testing.T) { // 2024 powers a paused instance on
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime = time.Second })
		c.mustCreate("a", 1, 1024, 10, nil)
		advance(2 * time.Second)
		c.do("POST", "/instances/a/pause", nil)
		if a := c.do("POST", "/instances/a/poweron", nil); a.status != 200 || string(bytes.TrimSpace(a.raw)) != "null" {
			t.Errorf("2024 power on of a paused instance: %d %s, want 200 null", a.status, a.raw)
		}
	})
}

func TestGenerationScopes2026(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) { gen2026(cfg); cfg.AuthScopes = []string{"instance.read", "network.*"} })
	if a := c.do("GET", "/instances", nil); a.status != 200 {
		t.Errorf("instance.read token listing instances: %d %s", a.status, a.raw)
	}
	wantError(t, c.create("a", 1, 1024, 10, nil), 403, "token is not scoped for instance.write")
	c.mustNetwork("n1", "10.1.0.0/24") // network.* covers write
	// Admin routes: system namespace (it is) and cluster-admin (it lacks).
	wantError(t, c.do("GET", "/nodes", nil), 403, "token is not scoped for administrative operations")

	_, admin := startSim(t, func(cfg *Config) { gen2026(cfg); cfg.AuthScopes = []string{"cluster-admin"} })
	if a := admin.do("GET", "/nodes", nil); a.status != 200 {
		t.Errorf("cluster-admin token listing nodes: %d %s", a.status, a.raw)
	}
	// A namespace other than system is 401 before any scope is read.
	_, user := startSim(t, func(cfg *Config) { gen2026(cfg); cfg.AuthNamespace = "team" })
	wantError(t, user.do("GET", "/nodes", nil), 401, "unauthorized")
}

func TestGenerationEventsLimit2026(t *testing.T) {
	_, c := startSim(t, gen2026)
	c.mustCreate("a", 1, 1024, 10, nil)
	for _, bad := range []any{0, 1001, -5, "ten"} {
		wantError(t, c.do("GET", "/instances/a/events", map[string]any{"limit": bad}), 400, "limit:")
	}
	if ev := c.do("GET", "/instances/a/events", map[string]any{"limit": 1}).list(t); len(ev) != 1 {
		t.Errorf("limit 1 gave %d events", len(ev))
	}
	_, old := startSim(t, nil)
	old.mustCreate("a", 1, 1024, 10, nil)
	if a := old.do("GET", "/instances/a/events", map[string]any{"limit": 5000}); a.status != 200 {
		t.Errorf("2024 limit 5000: %d %s", a.status, a.raw)
	}
}

func TestGenerationHealthProbes(t *testing.T) {
	_, c := startSim(t, gen2026)
	c.token = "" // unauthenticated
	for _, p := range []string{"/livez", "/readyz", "/healthz", "/api/livez"} {
		if a := c.do("GET", p, nil); a.status != 200 {
			t.Errorf("2026 %s: %d %s", p, a.status, a.raw)
		}
	}
	_, old := startSim(t, nil)
	old.token = ""
	if a := old.do("GET", "/livez", nil); a.status != 404 || !strings.Contains(string(a.raw), "<title>404 Not Found</title>") {
		t.Errorf("2024 /livez: %d %s, want Flask's HTML 404", a.status, a.raw)
	}
}

func TestGenerationAsyncNetworkDelete2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { gen2026(cfg); cfg.NetworkDeployTime = time.Second })
		n := c.mustNetwork("n1", "10.1.0.0/24")
		advance(2 * time.Second)
		a := c.do("DELETE", "/networks/n1", nil)
		if a.status != http.StatusAccepted {
			t.Fatalf("delete: %d %s, want 202", a.status, a.raw)
		}
		h := a.obj(t)
		wantKeys(t, "handle", h, "op_type", "op_uuid")
		if h["op_type"] != "net_op" {
			t.Fatalf("handle %v", h)
		}
		path := "/clusteroperations/net_op/" + h["op_uuid"].(string)
		if op := c.do("GET", path, nil).obj(t); op["state"] == "complete" {
			t.Errorf("operation complete before the network node ran it: %v", op)
		}
		advance(time.Second)
		op := c.do("GET", path, nil).obj(t)
		if op["state"] != "complete" || op["target_uuid"] != n["uuid"] {
			t.Errorf("operation after the deploy time: %v, want complete for %s", op, n["uuid"])
		}
		if st := c.do("GET", "/networks/"+n["uuid"].(string), nil).obj(t)["state"]; st != "deleted" {
			t.Errorf("network state %v, want deleted", st)
		}
		chain := c.do("GET", "/clusteroperations/"+h["op_uuid"].(string)+"/chain", nil).list(t)
		if len(chain) != 1 || chain[0]["uuid"] != h["op_uuid"] {
			t.Errorf("chain %v", chain)
		}
		byTarget := c.do("GET", "/clusteroperations?target_object_type=network&target_uuid="+n["uuid"].(string), nil).list(t)
		if len(byTarget) != 1 {
			t.Errorf("operations for the network: %v", byTarget)
		}
		wantError(t, c.do("GET", "/clusteroperations/net_op/"+newUUID(), nil), 404, "operation not found")
		wantError(t, c.do("GET", "/clusteroperations/nosuch_op/"+newUUID(), nil), 404, "operation type not found")
		wantError(t, c.do("DELETE", "/networks/"+n["uuid"].(string), nil), 404, "network is deleted")
	})
}

func TestGenerationNetworkOpError2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := bubbleSim(t, func(cfg *Config) { gen2026(cfg); cfg.NetworkDeployTime = time.Second; cfg.NetworkOpErrors = 1 })
		c.mustNetwork("n1", "10.1.0.0/24")
		c.mustNetwork("n2", "10.2.0.0/24")
		advance(2 * time.Second)
		h1 := c.do("DELETE", "/networks/n1", nil).obj(t)
		h2 := c.do("DELETE", "/networks/n2", nil).obj(t)
		advance(2 * time.Second)
		op1 := c.do("GET", "/clusteroperations/net_op/"+h1["op_uuid"].(string), nil).obj(t)
		op2 := c.do("GET", "/clusteroperations/net_op/"+h2["op_uuid"].(string), nil).obj(t)
		if op1["state"] != "error" || op1["error_message"] == nil || op2["state"] != "complete" {
			t.Errorf("first op %v (want error with a message), second %v (want complete)", op1, op2)
		}
		if st := c.do("GET", "/networks/n1", nil).obj(t)["state"]; st != "created" {
			t.Errorf("network whose delete failed: %v, want still created", st)
		}
		if err := srv.SetNetworkOpErrors(1); err != nil {
			t.Fatal(err)
		}
		h3 := c.do("DELETE", "/networks/n1", nil).obj(t)
		advance(2 * time.Second)
		if st := c.do("GET", "/clusteroperations/net_op/"+h3["op_uuid"].(string), nil).obj(t)["state"]; st != "error" {
			t.Errorf("after SetNetworkOpErrors(1): %v, want error", st)
		}
	})
}

func TestGenerationDeleteAllNetworks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, gen2026)
		n1 := c.mustNetwork("n1", "10.1.0.0/24")
		c.mustNetwork("n2", "10.2.0.0/24")
		wantError(t, c.do("DELETE", "/networks", map[string]any{"confirm": true}), 400, "system user must specify parameter namespace")
		wantError(t, c.do("DELETE", "/networks", map[string]any{"namespace": "system"}), 400, "parameter confirm is not set true")
		a := c.do("DELETE", "/networks", map[string]any{"confirm": true, "namespace": "system"})
		if a.status != http.StatusAccepted {
			t.Fatalf("delete all: %d %s", a.status, a.raw)
		}
		hs := a.list(t)
		if len(hs) != 2 || hs[0]["network_uuid"] != n1["uuid"] || hs[0]["op_type"] != "net_op" || hs[0]["op_uuid"] == "" {
			t.Errorf("handles %v", hs)
		}
	})
	synctest.Test(t, func(t *testing.T) { // 2024: the deleted UUIDs
		_, c := bubbleSim(t, nil)
		n1 := c.mustNetwork("n1", "10.1.0.0/24")
		a := c.do("DELETE", "/networks", map[string]any{"confirm": true, "namespace": "system"})
		if a.status != 200 || string(bytes.TrimSpace(a.raw)) != `["`+n1["uuid"].(string)+`"]` {
			t.Errorf("2024 delete all: %d %s", a.status, a.raw)
		}
	})
}

func TestLegacyRefusalsOnlyFor2024(t *testing.T) {
	cfg := testConfig()
	cfg.Generation, cfg.LegacyRefusals = Generation2026, true
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "(Generation 2024)") {
		t.Errorf("2026 with legacy refusals: %v, want an error pointing at the Generation field (--server 2024)", err)
	}
	cfg.Generation = Generation2024
	if err := cfg.Validate(); err != nil {
		t.Errorf("2024 with legacy refusals: %v", err)
	}
	if DefaultConfig().Generation != Generation2026 {
		t.Errorf("default generation %q, want 2026", DefaultConfig().Generation)
	}
}

// TestGenerationNetworkDeleteWaitsForInterfaces2026: a network still
// holding an instance's interface goes to delete-wait, and its operation
// completes only when the last interface goes.
func TestGenerationNetworkDeleteWaitsForInterfaces2026(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { gen2026(cfg); cfg.NetworkDeployTime = time.Second })
		n := c.mustNetwork("n1", "10.1.0.0/24")
		advance(2 * time.Second)
		c.mustCreate("a", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		h := c.do("DELETE", "/networks/n1", nil).obj(t)
		path := "/clusteroperations/net_op/" + h["op_uuid"].(string)
		advance(2 * time.Second)
		if op := c.do("GET", path, nil).obj(t); op["state"] != "executing" {
			t.Errorf("operation while an interface remains: %v, want executing", op["state"])
		}
		if st := c.do("GET", "/networks/n1", nil).obj(t)["state"]; st != "delete-wait" {
			t.Errorf("network %v, want delete-wait", st)
		}
		// Asking again while it waits gives the same operation.
		if again := c.do("DELETE", "/networks/n1", nil).obj(t); again["op_uuid"] != h["op_uuid"] {
			t.Errorf("second delete %v, want the pending operation %v", again, h)
		}
		c.do("DELETE", "/instances/a", nil)
		if op := c.do("GET", path, nil).obj(t); op["state"] != "complete" {
			t.Errorf("operation after the last interface went: %v, want complete", op["state"])
		}
	})
}

// 2026 scopes of the console routes: the two VDI routes need
// instance.console (@api_base.scope(verb='console')), the serial console
// log is derived as any route (instance.read, instance.delete).
func TestGenerationConsoleScopes2026(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) {
		gen2026(cfg)
		cfg.Kerbside, cfg.CreateTime = true, 0
		cfg.AuthScopes = []string{"instance.read", "instance.write", "instance.delete"}
	})
	uuid := c.mustCreate("a", 1, 1024, 10, nil)["uuid"].(string)
	for _, path := range []string{"/instances/" + uuid + "/vdiconsolehelper", "/instances/" + uuid + "/vdiconsoleproxy"} {
		wantError(t, c.do("GET", path, nil), 403, "token is not scoped for instance.console")
	}
	if a := c.do("GET", "/instances/"+uuid+"/consoledata", nil); a.status != 200 {
		t.Errorf("instance.read reading the console log: %d %s", a.status, a.raw)
	}
	if a := c.do("DELETE", "/instances/"+uuid+"/consoledata", nil); a.status != 200 {
		t.Errorf("instance.delete clearing the console log: %d %s", a.status, a.raw)
	}
	// The token is minted for a running instance: in a bubble, so that
	// the create's zero-length timers have run before it is asked for
	// (on a real socket they raced the request).
	synctest.Test(t, func(t *testing.T) {
		_, console := bubbleSim(t, func(cfg *Config) {
			gen2026(cfg)
			cfg.Kerbside, cfg.CreateTime = true, 0
			cfg.AuthScopes = []string{"instance.console", "instance.write"}
		})
		uuid := console.mustCreate("b", 1, 1024, 10, nil)["uuid"].(string)
		synctest.Wait()
		if a := console.do("GET", "/instances/"+uuid+"/vdiconsoleproxy", nil); a.status != 200 || !strings.Contains(string(a.raw), `/kerbside/sf-console.vv?token=`) {
			t.Errorf("instance.console minting a console token: %d %s", a.status, a.raw)
		}
	})
}
