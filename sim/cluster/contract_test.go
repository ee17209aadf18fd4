package cluster

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Contract tests written from the server's API reference and
// source (shakenfist/shakenfist da448b1a), not from shakectl's
// client: every route's answer shape and status code.

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func wantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := keysOf(m); !slices.Equal(got, want) {
		t.Errorf("%s keys\n got %v\nwant %v", what, got, want)
	}
}

var instanceKeys = []string{"uuid", "state", "metadata", "version", "cpus", "memory", "disk_spec", "name",
	"namespace", "ssh_key", "user_data", "video", "uefi", "configdrive", "nvram_template", "secure_boot",
	"machine_type", "side_channels", "agent_state", "agent_start_time", "agent_system_boot_time",
	"error_message", "node", "power_state", "console_port", "vdi_port", "vdi_tls_port", "interfaces", "disks"}

var interfaceKeys = []string{"uuid", "state", "metadata", "version", "network_uuid", "instance_uuid",
	"macaddr", "ipv4", "order", "model", "floating"}

func TestContractAuth(t *testing.T) {
	_, c := startSim(t, nil)
	a := c.do("POST", "/auth", map[string]any{"namespace": c.ns, "key": c.key})
	m := a.obj(t)
	wantKeys(t, "auth", m, "access_token", "token_type", "expires_in")
	if m["token_type"] != "Bearer" || m["expires_in"] != float64(900) {
		t.Errorf("auth answer %s, want token_type Bearer, expires_in 900 (15 minutes)", a.raw)
	}
	wantError(t, c.do("POST", "/auth", map[string]any{"namespace": "nosuch", "key": "x"}), 404, "namespace not found")
	wantError(t, c.do("POST", "/auth", map[string]any{"namespace": c.ns, "key": "wrong"}), 401, "unauthorized")
	wantError(t, c.do("POST", "/auth", map[string]any{"key": "x"}), 400, "missing namespace in request")
	wantError(t, c.do("POST", "/auth", map[string]any{"namespace": c.ns}), 400, "missing key in request")
	wantError(t, c.do("POST", "/auth", map[string]any{"namespace": c.ns, "key": 7}), 400, "key is not a string")
	wantError(t, c.do("POST", "/auth", map[string]any{"namespace": c.ns, "key": "x", "foo": 1}), 400,
		"AuthEndpoint.post() got an unexpected keyword argument 'foo'")
	wantError(t, c.do("GET", "/instances", nil, "Authorization", ""), 401, "Missing Authorization Header")
}

func TestContractFramework(t *testing.T) {
	_, c := startSim(t, nil)
	root := c.do("GET", "/", nil, "Authorization", "")
	if root.status != 200 || !strings.Contains(string(root.raw), "node-metadata") || !strings.Contains(string(root.raw), "events-by-type") {
		t.Errorf("GET / = %d %s, want the capability list", root.status, root.raw)
	}
	for _, p := range []string{"/nosuch", "/instances/x/nosuch", "/api/nosuch"} {
		a := c.do("GET", p, nil)
		if a.status != 404 || a.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(string(a.raw), "<title>404 Not Found</title>") {
			t.Errorf("GET %s = %d %q %s, want Flask's HTML 404", p, a.status, a.header.Get("Content-Type"), a.raw)
		}
	}
	for _, mp := range [][2]string{{"PUT", "/instances"}, {"GET", "/auth"}, {"GET", "/instances/x/poweron"}, {"DELETE", "/nodes"}} {
		a := c.do(mp[0], mp[1], nil)
		if a.status != 405 || string(a.raw) != "{\"message\": \"The method is not allowed for the requested URL.\"}\n" {
			t.Errorf("%s %s = %d %s, want Flask-RESTful's 405 (client/testdata/sf2024/recorded/method-405.http)", mp[0], mp[1], a.status, a.raw)
		}
	}
	// Parameters are a JSON body on every method; query strings are ignored.
	c.mustCreate("gone", 1, 512, 1, nil)
	c.do("DELETE", "/instances/gone", nil)
	if l := c.do("GET", "/instances?all=true", nil).list(t); len(l) != 0 {
		t.Errorf("the query string was read: %d instances", len(l))
	}
	if l := c.do("GET", "/instances", map[string]any{"all": true}).list(t); len(l) != 1 {
		t.Errorf("GET with body all=true listed %d instances, want the deleted one", len(l))
	}
	wantError(t, c.do("GET", "/instances", map[string]any{"foo": 1}), 400, "InstancesEndpoint.get() got an unexpected keyword argument 'foo'")
	// Both API roots real deployments use.
	if a := c.do("GET", "/api/instances", nil); a.status != 200 {
		t.Errorf("GET /api/instances = %d", a.status)
	}
}

func TestContractInstanceCreateAcceptsEveryField(t *testing.T) {
	_, c := startSim(t, nil)
	net := c.mustNetwork("n1", "10.1.0.0/24")
	body := map[string]any{
		"name": "full", "cpus": 1, "memory": 1024,
		"network": []map[string]any{{"network_uuid": net["uuid"], "address": "10.1.0.9", "macaddress": "02:00:00:aa:bb:cc", "model": "e1000", "float": true}},
		"disk":    []map[string]any{{"size": 8, "base": "debian:12", "bus": "nvme", "type": "disk"}},
		"ssh_key": "ssh-ed25519 AAAA x", "user_data": "I2Nsb3Vk", "placed_on": "node1", "namespace": "system",
		"video": map[string]any{"model": "qxl", "memory": 65536}, "uefi": true, "configdrive": "none",
		"metadata":       map[string]any{"tags": []string{"a"}, "affinity": map[string]any{"web": "-1"}},
		"nvram_template": "blob://x", "secure_boot": true, "side_channels": []string{},
	}
	a := c.do("POST", "/instances", body)
	if a.status != 200 {
		t.Fatalf("create with every field: %d %s", a.status, a.raw)
	}
	m := a.obj(t)
	wantKeys(t, "instance", m, append(slices.Clone(instanceKeys), "requested_placement")...)
	if m["state"] != "initial" || m["power_state"] != "initial" || m["version"] != float64(14) || m["machine_type"] != "q35" {
		t.Errorf("new instance: %s", a.raw)
	}
	ifs := m["interfaces"].([]any)
	if len(ifs) != 1 {
		t.Fatalf("interfaces: %v", m["interfaces"])
	}
	ifc := ifs[0].(map[string]any)
	wantKeys(t, "interface", ifc, interfaceKeys...)
	if ifc["ipv4"] != "10.1.0.9" || ifc["macaddr"] != "02:00:00:aa:bb:cc" || ifc["model"] != "e1000" || ifc["floating"] == nil || ifc["order"] != float64(0) {
		t.Errorf("interface %v", ifc)
	}
	if d := m["disks"].([]any)[0].(map[string]any); d["device"] != "nvme0" || d["bus"] != "nvme" {
		t.Errorf("disks %v", m["disks"])
	}
	wantError(t, c.do("POST", "/instances", map[string]any{"name": "x", "foo": 1}), 400,
		"InstancesEndpoint.post() got an unexpected keyword argument 'foo'")
}

func TestContractInstanceValidation(t *testing.T) {
	_, c := startSim(t, nil)
	disk := []map[string]any{{"size": 1}}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		msg    string
	}{
		{"dots", map[string]any{"name": "a.b", "disk": disk}, 400, "instance name a.b is not useable as a DNS and Linux host name"},
		{"long", map[string]any{"name": strings.Repeat("a", 64), "disk": disk}, 400, "not useable as a DNS"},
		{"no disk", map[string]any{"name": "a"}, 400, "instance must specify at least one disk"},
		{"disk not object", map[string]any{"name": "a", "disk": []any{1}}, 400, "disk specification should contain JSON objects"},
		{"bus", map[string]any{"name": "a", "disk": []map[string]any{{"bus": "floppy"}}}, 400, "invalid disk bus floppy"},
		{"ide", map[string]any{"name": "a", "disk": []map[string]any{{"bus": "ide"}}}, 400, "IDE disks are no longer supported"},
		{"configdrive", map[string]any{"name": "a", "disk": disk, "configdrive": "cdrom"}, 400, `invalid config drive type: "cdrom"`},
		{"secure boot", map[string]any{"name": "a", "disk": disk, "secure_boot": true}, 400, "secure boot requires UEFI be enabled"},
		{"video", map[string]any{"name": "a", "disk": disk, "video": map[string]any{"model": "qxl"}}, 400, `video specification requires "memory"`},
		{"metadata empty value", map[string]any{"name": "a", "disk": disk, "metadata": map[string]any{"k": ""}}, 400, "no value specified"},
		{"metadata list value", map[string]any{"name": "a", "disk": disk, "metadata": map[string]any{"k": []any{}}}, 400, "no value specified"},
		{"metadata not dict", map[string]any{"name": "a", "disk": disk, "metadata": []any{1}}, 400, "metadata must be a dictionary"},
		{"tags", map[string]any{"name": "a", "disk": disk, "metadata": map[string]any{"tags": "x"}}, 400, `value for "tags" key should be a JSON list`},
		{"affinity string", map[string]any{"name": "a", "disk": disk, "metadata": map[string]any{"affinity": map[string]any{"x": "high"}}}, 400, "affinity dictionary values should be integers"},
		{"affinity list", map[string]any{"name": "a", "disk": disk, "metadata": map[string]any{"affinity": map[string]any{"x": []any{1}}}}, 400, "int() argument must be a string, a bytes-like object or a real number, not 'list'"},
		{"placed_on", map[string]any{"name": "a", "disk": disk, "placed_on": "nosuch"}, 404, "Specified node does not exist"},
		{"namespace", map[string]any{"name": "a", "disk": disk, "namespace": "nosuch"}, 404, "namespace not found"},
		{"network missing uuid", map[string]any{"name": "a", "disk": disk, "network": []map[string]any{{}}}, 400, "network specification is missing network_uuid"},
		{"network unknown", map[string]any{"name": "a", "disk": disk, "network": []map[string]any{{"network_uuid": "nosuch"}}}, 404, "network nosuch not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, c.do("POST", "/instances", tc.body), tc.status, tc.msg)
		})
	}
	// cpus and memory are not type-checked by the API: a float is fine.
	if a := c.do("POST", "/instances", map[string]any{"name": "f", "cpus": 1.5, "memory": 1024.5, "disk": disk}); a.status != 200 {
		t.Errorf("float cpus: %d %s", a.status, a.raw)
	}
}

func TestContractInstanceLifecycleAndPower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime = 3 * time.Second })
		m := c.mustCreate("vm", 1, 1024, 10, nil)
		id := m["uuid"].(string)
		wantError(t, c.do("POST", "/instances/"+id+"/poweroff", nil), 406, "instance "+id+" is not ready (initial)")
		seen := []string{m["state"].(string)}
		for range 4 {
			time.Sleep(time.Second)
			synctest.Wait()
			st := c.do("GET", "/instances/"+id, nil).obj(t)["state"].(string)
			if st != seen[len(seen)-1] {
				seen = append(seen, st)
			}
		}
		if !slices.Equal(seen, []string{"initial", "preflight", "creating", "created"}) {
			t.Errorf("states %v", seen)
		}
		if ps := c.do("GET", "/instances/"+id, nil).obj(t)["power_state"]; ps != "on" {
			t.Errorf("power_state %v, want on", ps)
		}
		for _, step := range []struct{ action, want string }{
			{"poweroff", ""}, {"poweroff", ""},
			{"rebootsoft", "Invalid lifecycle state: you cannot reboot a powered off instance"},
			{"reboothard", "Invalid lifecycle state: you cannot reboot a powered off instance"},
			{"pause", "Invalid lifecycle state: you cannot pause a powered off instance"},
			{"unpause", "Invalid lifecycle state: you cannot unpause a powered off instance"},
			{"poweron", ""}, {"poweron", ""}, {"pause", ""}, {"unpause", ""}, {"rebootsoft", ""},
		} {
			a := c.do("POST", "/instances/"+id+"/"+step.action, nil)
			if step.want != "" {
				wantError(t, a, 409, step.want)
				continue
			}
			if a.status != 200 || strings.TrimSpace(string(a.raw)) != "null" {
				t.Errorf("%s: %d %s, want 200 null", step.action, a.status, a.raw)
			}
		}
		ev := c.do("GET", "/instances/"+id+"/events", nil).list(t)
		wantKeys(t, "event", ev[0], "type", "timestamp", "fqdn", "duration", "message", "extra")
		for k := 1; k < len(ev); k++ {
			if ev[k]["timestamp"].(float64) > ev[k-1]["timestamp"].(float64) {
				t.Fatalf("events not newest first")
			}
		}
		if l := c.do("GET", "/instances/"+id+"/events", map[string]any{"limit": 2, "event_type": "audit"}).list(t); len(l) != 2 {
			t.Errorf("limit 2 gave %d events", len(l))
		}
		if l := c.do("GET", "/instances/"+id+"/events", map[string]any{"event_type": "usage"}).list(t); len(l) != 0 {
			t.Errorf("event_type usage gave %d events", len(l))
		}
		del := c.do("DELETE", "/instances/"+id, nil)
		if del.status != 200 || del.obj(t)["state"] != "created" {
			t.Errorf("delete: %d %s, want 200 with the view as it was", del.status, del.raw)
		}
		wantError(t, c.do("DELETE", "/instances/"+id, nil), 404, "instance not found")
		if st := c.do("GET", "/instances/"+id, nil).obj(t)["state"]; st != "deleted" {
			t.Errorf("after delete: %v", st)
		}
	})
}

func TestContractNetworks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) {
			cfg.NetworkDeployTime = time.Second
			cfg.CreateTime = 0
			cfg.ErrorCleanup = 10 * time.Second
		})
		a := c.do("POST", "/networks", map[string]any{"name": "n", "netblock": "10.2.0.0/29", "provide_nat": false})
		n := a.obj(t)
		wantKeys(t, "network", n, "uuid", "state", "metadata", "version", "name", "namespace", "netblock",
			"provide_dhcp", "provide_nat", "provide_dns", "floating_gateway", "vxlan_id")
		if n["state"] != "initial" || n["provide_nat"] != true || n["version"] != float64(6) {
			t.Errorf("new network %s", a.raw)
		}
		id := n["uuid"].(string)
		net := []map[string]any{{"network_uuid": id}}
		wantError(t, c.create("early", 1, 512, 1, map[string]any{"network": net}), 406, "network "+id+" is not ready (initial)")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if st := c.do("GET", "/networks/"+id, nil).obj(t)["state"]; st != "created" {
			t.Fatalf("network state %v after the deploy lag", st)
		}
		c.mustCreate("a", 1, 512, 1, map[string]any{"network": []map[string]any{{"network_uuid": id, "address": "10.2.0.2"}}})
		wantError(t, c.create("b", 1, 512, 1, map[string]any{"network": []map[string]any{{"network_uuid": id, "address": "10.2.0.2"}}}), 409, "address 10.2.0.2 in use")
		for k := range 4 { // a /29 pool holds five addresses
			c.mustCreate("f"+string(rune('0'+k)), 1, 512, 1, map[string]any{"network": net})
		}
		wantError(t, c.create("full", 1, 512, 1, map[string]any{"network": net}), 507, "No free addresses on network")

		d := c.do("DELETE", "/networks/"+id, nil)
		if d.status != 200 || d.obj(t)["state"] != "delete-wait" {
			t.Fatalf("delete with interfaces: %d %s, want 200 delete-wait", d.status, d.raw)
		}
		for _, i := range c.do("GET", "/instances", nil).list(t) {
			c.do("DELETE", "/instances/"+i["uuid"].(string), nil)
		}
		time.Sleep(20 * time.Second) // the refused records' cleanup
		synctest.Wait()
		if st := c.do("GET", "/networks/"+id, nil).obj(t)["state"]; st != "deleted" {
			t.Errorf("network state %v once its interfaces went", st)
		}
		if a := c.do("DELETE", "/networks/"+id, nil); a.status != 200 || strings.TrimSpace(string(a.raw)) != "null" {
			t.Errorf("delete of a deleted network: %d %s, want 200 null", a.status, a.raw)
		}
		wantError(t, c.do("POST", "/networks", map[string]any{"netblock": "192.168.0.0/30"}), 400, "network is below minimum size of /29")
		wantError(t, c.do("POST", "/networks", map[string]any{"netblock": "10.0.0.1/24"}), 400, "cannot parse netblock")
	})
}

func TestContractNodesAndNamespaces(t *testing.T) {
	_, c := startSim(t, nil)
	nodes := c.do("GET", "/nodes", nil).list(t)
	node := []string{"uuid", "state", "metadata", "version", "name", "ip", "lastseen", "release",
		"is_etcd_master", "is_hypervisor", "is_network_node", "is_eventlog_node"}
	wantKeys(t, "nodes entry", nodes[0], append(slices.Clone(node), "is_cluster_maintainer")...)
	if nodes[0]["version"] != float64(7) {
		t.Errorf("node version %v, want the integer 7", nodes[0]["version"])
	}
	wantKeys(t, "node", c.do("GET", "/nodes/node1", nil).obj(t), node...)
	wantError(t, c.do("GET", "/nodes/nosuch", nil), 404, "node not found")
	ns := c.do("GET", "/auth/namespaces", nil).list(t)
	wantKeys(t, "namespace", ns[0], "name", "state", "metadata", "version", "keys", "trust")
	if k := ns[0]["keys"].([]any); len(k) != 1 || k[0] != "deploy" {
		t.Errorf("keys %v", ns[0]["keys"])
	}
}

func TestContractAdminOnlyNodes(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) { cfg.AuthNamespace = "team" })
	wantError(t, c.do("GET", "/nodes", nil), 401, "unauthorized")
	wantError(t, c.do("GET", "/nodes/node1", nil), 401, "unauthorized")
	wantError(t, c.do("GET", "/nodes/node1/metadata", nil), 401, "unauthorized")
}

func TestContractMetadataRoutes(t *testing.T) {
	_, c := startSim(t, nil)
	n := c.mustNetwork("n", "10.3.0.0/24")
	i := c.mustCreate("vm", 1, 512, 1, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
	ifc := c.do("GET", "/instances/vm/interfaces", nil).list(t)
	if len(ifc) != 1 {
		t.Fatalf("interfaces %v", ifc)
	}
	for _, base := range []string{"/instances/" + i["uuid"].(string), "/networks/n", "/interfaces/" + ifc[0]["uuid"].(string), "/nodes/node1"} {
		if a := c.do("PUT", base+"/metadata/owner", map[string]any{"value": "ci"}); a.status != 200 || strings.TrimSpace(string(a.raw)) != "null" {
			t.Errorf("PUT %s/metadata/owner: %d %s", base, a.status, a.raw)
		}
		if md := c.do("GET", base+"/metadata", nil).obj(t); md["owner"] != "ci" {
			t.Errorf("GET %s/metadata = %v", base, md)
		}
		wantError(t, c.do("PUT", base+"/metadata/owner", map[string]any{"value": ""}), 400, "no value specified")
		if a := c.do("DELETE", base+"/metadata/owner", nil); a.status != 200 {
			t.Errorf("DELETE %s/metadata/owner: %d", base, a.status)
		}
	}
}

func TestContractSchedulerArithmetic(t *testing.T) {
	// 4 cores × 16 = 64 vCPUs; 8192 MiB less 2 GiB = 6144 MiB; 100 GiB less 20 = 80 GiB.
	_, c := startSim(t, func(cfg *Config) { realScheduler(cfg); cfg.Nodes = 1 })
	for k := range 16 {
		c.mustCreate("c"+string(rune('a'+k)), 4, 64, 1, nil)
	}
	wantError(t, c.create("cpu", 1, 64, 1, nil), 507, "No nodes with enough idle CPU", "stage", "transient")
	wantError(t, c.create("big", 5, 64, 1, nil), 507, "Requested vCPUs exceeds vCPU limit", "stage", "transient")
	_, c2 := startSim(t, func(cfg *Config) { realScheduler(cfg); cfg.Nodes = 1 })
	wantError(t, c2.create("ram", 1, 6145, 1, nil), 507, "No nodes with enough idle RAM", "stage", "transient")
	wantError(t, c2.create("disk", 1, 1, 81, nil), 507, "No nodes with enough disk space", "stage", "transient")
	c2.mustCreate("diskok", 1, 6144, 80, nil)
	refused := c2.do("GET", "/instances", nil).list(t)
	var states []string
	for _, i := range refused {
		if i["error_message"] != nil {
			states = append(states, i["state"].(string)+":"+i["error_message"].(string))
		}
	}
	if !slices.Equal(states, []string{"initial-error:scheduling failed", "initial-error:scheduling failed"}) {
		t.Errorf("refused records %v", states)
	}
}

func TestContractLegacyRefusals(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) {
		cfg.LegacyRefusals = true
		cfg.NodeTags = map[string][]string{"node1": {"ssd"}}
	})
	a := c.create("big", 5, 64, 1, nil)
	wantError(t, a, 507, "Requested vCPUs exceeds vCPU limit")
	a = c.create("ram", 1, 1<<20, 1, nil)
	wantError(t, a, 507, "No nodes with enough idle RAM")
	if a.header.Get("Retry-After") != "" {
		t.Errorf("legacy refusal carries Retry-After")
	}
	// Affinity is soft: a hard-affinity list is int()'d and refused as the
	// 2024 server refuses it.
	wantError(t, c.create("hard", 1, 64, 1, map[string]any{"metadata": map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu"}}}}),
		400, "int() argument must be a string, a bytes-like object or a real number, not 'list'")
}

func TestContractSeedRefusals(t *testing.T) {
	_, c := startSim(t, func(cfg *Config) { cfg.NodeTags = map[string][]string{"node1": {"ssd"}} })
	a := c.create("ram", 1, 1<<20, 1, nil)
	m := wantError(t, a, 507, "No nodes with enough idle RAM", "stage", "transient")
	if m["stage"] != "sufficient_idle_memory" || m["transient"] != true || a.header.Get("Retry-After") != "15" {
		t.Errorf("seed refusal %s Retry-After %q", a.raw, a.header.Get("Retry-After"))
	}
	wantError(t, c.create("hard", 1, 64, 1, map[string]any{"metadata": map[string]any{"affinity": map[string]any{"require_with_tag": []string{"gpu"}}}}), 409, "hard affinity")
}

// A name two live objects share is a 400 with from_db_by_ref's text
// (shakenfist da448b1a baseobject.py; tests/test_external_api.py expects
// 'multiple instances have the name "barry" in namespace "system"').
func TestContractAmbiguousNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.NetworkDeployTime = 0; cfg.CreateTime = 0 })
		c.mustNetwork("twin", "10.3.0.0/24")
		c.mustNetwork("twin", "10.4.0.0/24")
		wantError(t, c.create("a", 1, 512, 1, map[string]any{"network": []map[string]any{{"network_uuid": "twin"}}}),
			400, `multiple networks have the name "twin" in namespace "system"`)
		c.mustCreate("barry", 1, 512, 1, nil)
		c.mustCreate("barry", 1, 512, 1, nil)
		wantError(t, c.do("GET", "/instances/barry", nil), 400, `multiple instances have the name "barry" in namespace "system"`)
	})
}
