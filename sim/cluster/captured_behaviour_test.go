package cluster

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// What the real servers showed in the captures (issue 45's table), held
// in both generations where the behaviour is both generations', and the
// 2026 generation kept as it was where the 2024 server's quirk is its own.
// testdata/conformance replays the captures themselves.

// An instance the scheduler never placed has no placement node, and the
// routes a node answers for its instances return before their handler
// (redirect_instance_request): 200 null as JSON, in both generations.
func TestNeverPlacedInstanceAnswersNull(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		if a := c.create("big", 64, 1024, 8, nil); a.status != 507 {
			t.Fatalf("the create to refuse: %d %s", a.status, a.raw)
		}
		for _, r := range []struct{ method, path string }{
			{"GET", "/instances/big/consoledata"},
			{"DELETE", "/instances/big/consoledata"},
			{"GET", "/instances/big/vdiconsolehelper"},
			{"GET", "/instances/big/screenshot"},
			{"POST", "/instances/big/snapshot"},
			{"POST", "/instances/big/poweron"},
			{"POST", "/instances/big/poweroff"},
			{"POST", "/instances/big/reboothard"},
			{"POST", "/instances/big/pause"},
		} {
			a := c.do(r.method, r.path, nil)
			if a.status != 200 || a.header.Get("Content-Type") != "application/json" || string(a.raw) != "null\n" {
				t.Errorf("%s %s: %d %q %q, want 200 application/json null", r.method, r.path, a.status, a.header.Get("Content-Type"), a.raw)
			}
		}
		// The agent's routes check the instance is created first.
		wantError(t, c.do("POST", "/instances/big/agent/execute", map[string]any{"command_line": "true"}), 406, "is not ready (initial-error)")
	})
}

// The agent's routes refuse an instance not created with the decorator's
// 406, and one created whose agent has not booted with the handler's 400.
func TestAgentRoutesCheckTheInstanceBeforeTheAgent(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.CreateTime = time.Second; cfg.AgentBoot = time.Minute })
			i := c.mustCreate("a", 1, 1024, 8, nil)
			for _, r := range []struct {
				path string
				body map[string]any
			}{
				{"/instances/a/agent/execute", map[string]any{"command_line": "uptime"}},
				{"/instances/a/agent/get", map[string]any{"path": "/etc/hostname"}},
			} {
				m := wantError(t, c.do("POST", r.path, r.body), 406, "is not ready (initial)")
				if m["error"] != "instance "+i["uuid"].(string)+" is not ready (initial)" {
					t.Errorf("%s: %v", r.path, m)
				}
			}
			advance(2 * time.Second)
			wantError(t, c.do("POST", "/instances/a/agent/execute", map[string]any{"command_line": "uptime"}), 400, "instance agent not ready")
		})
	})
}

// The console log exists once the instance has started.
func TestConsoleOfAnInstanceNotStartedIsEmpty(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		c.mustCreate("a", 1, 1024, 8, nil)
		if a := c.do("GET", "/instances/a/consoledata", nil); a.status != 200 || a.header.Get("Content-Type") != "applicaton/octet-stream" || len(a.raw) != 0 {
			t.Errorf("console of an instance not started: %d %q %q", a.status, a.header.Get("Content-Type"), a.raw)
		}
	})
}

// "system" in a delete-all names every namespace's networks; one with
// interfaces is left, and the answer is the 403 of deleted and unable
// (2024), or 202 with an operation per deleted network (2026).
func TestDeleteAllNetworksOfSystemMeansEveryNamespace(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.NetworkDeployTime = 0 })
		if a := c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ci"}); a.status != 200 {
			t.Fatalf("namespace: %d %s", a.status, a.raw)
		}
		used := c.do("POST", "/networks", map[string]any{"name": "used", "netblock": "10.1.0.0/24", "namespace": "ci"}).obj(t)
		free := c.do("POST", "/networks", map[string]any{"name": "free", "netblock": "10.2.0.0/24", "namespace": "ci"}).obj(t)
		c.mustCreate("a", 1, 1024, 8, map[string]any{"namespace": "ci", "network": []map[string]any{{"network_uuid": used["uuid"]}}})
		a := c.do("DELETE", "/networks", map[string]any{"confirm": true, "namespace": "system"})
		if a.status != 403 || a.header.Get("Content-Type") != "application/json" {
			t.Fatalf("delete all of system: %d %q %s", a.status, a.header.Get("Content-Type"), a.raw)
		}
		var body struct {
			Error struct{ Deleted, Unable []string } `json:"error"`
		}
		if err := jsonUnmarshal(a.raw, &body); err != nil || len(body.Error.Deleted) != 1 || body.Error.Deleted[0] != free["uuid"] || len(body.Error.Unable) != 1 || body.Error.Unable[0] != used["uuid"] {
			t.Errorf("delete all of system: %s (%v)", a.raw, err)
		}
	})
}

// With a queued delete (DeleteTime), the instance keeps its state and
// everything it holds until its node carries the delete out; asking
// again answers it again.
func TestQueuedDeleteKeepsTheInstanceUntilItsNodeDeletesIt(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.DeleteTime = 10 * time.Second })
			i := c.mustCreate("a", 1, 1024, 8, nil)
			if d := c.do("DELETE", "/instances/a", nil).obj(t); d["state"] != "initial" {
				t.Errorf("delete answered %v", d["state"])
			}
			if got := stateOf(t, c, "a"); got != "initial" {
				t.Errorf("state while the delete is queued: %s", got)
			}
			if again := c.do("DELETE", "/instances/a", nil); again.status != 200 {
				t.Errorf("delete again: %d %s", again.status, again.raw)
			}
			all := c.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "system"})
			if string(all.raw) != `["`+i["uuid"].(string)+`"]`+"\n" {
				t.Errorf("delete all while queued: %s", all.raw)
			}
			advance(11 * time.Second)
			if got := stateOf(t, c, i["uuid"].(string)); got != "deleted" {
				t.Errorf("state after the delete time: %s", got)
			}
			wantError(t, c.do("GET", "/instances/a", nil), 404, "instance not found")
		})
	})
}

// A lock is held only while something holds it: an instance's delete
// lock, on its node, until the teardown is over.
func TestLocksAreHeldWhileAnInstanceIsTornDown(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.TeardownLag = 5 * time.Second })
			i := c.mustCreate("a", 1, 1024, 8, nil)
			if a := c.do("GET", "/admin/locks", nil); string(a.raw) != "{}\n" {
				t.Errorf("locks with nothing going on: %s", a.raw)
			}
			c.do("DELETE", "/instances/a", nil)
			key := map[string]string{Generation2024: "/sflocks/sf/instance/", Generation2026: "instance/"}[gen] + i["uuid"].(string)
			locks := c.do("GET", "/admin/locks", nil).obj(t)
			held, _ := locks[key].(map[string]any)
			if len(locks) != 1 || held["operation"] != "Instance delete" || held["node"] != "node1" && held["node"] != "node2" {
				t.Errorf("locks while a is torn down: %v", locks)
			}
			want := []string{"id", "line", "node", "operation", "pid"}
			if gen == Generation2026 {
				want = append(want, "thread")
			}
			wantKeys(t, "holder", held, want...)
			advance(6 * time.Second)
			if a := c.do("GET", "/admin/locks", nil); string(a.raw) != "{}\n" {
				t.Errorf("locks after the teardown: %s", a.raw)
			}
		})
	})
}

// A network created with provide_dhcp false: the 2024 server turns it
// into true (as it does provide_nat); 2026 keeps what was sent.
func TestProvideDHCPFalse(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		n := c.do("POST", "/networks", map[string]any{"name": "n", "netblock": "10.3.0.0/24", "provide_dhcp": false, "provide_nat": false}).obj(t)
		if n["provide_dhcp"] != (gen == Generation2024) || n["provide_nat"] != true {
			t.Errorf("provide_dhcp %v, provide_nat %v", n["provide_dhcp"], n["provide_nat"])
		}
	})
}

// Deleting a routed address: the 2024 server never can (403); 2026 can.
func TestDeleteRouted(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.NetworkDeployTime = 0 })
		c.mustNetwork("net1", "10.4.0.0/24")
		c.mustNetwork("net2", "10.5.0.0/24")
		addr := c.do("POST", "/networks/net1/route", nil).str(t)
		wantError(t, c.do("DELETE", "/networks/net2/route/"+addr, nil), 403, "address not routed by this network")
		wantError(t, c.do("DELETE", "/networks/net1/route/192.0.2.1", nil), 404, "address not routed")
		if gen == Generation2024 {
			wantError(t, c.do("DELETE", "/networks/net1/route/"+addr, nil), 403, "address not routed by this network")
			return
		}
		nullBody(t, c.do("DELETE", "/networks/net1/route/"+addr, nil))
		wantError(t, c.do("DELETE", "/networks/net1/route/"+addr, nil), 404, "address not routed")
	})
}

// --no-floating-network: the first call that needs a floating address
// answers the 2024 server's 500 and makes the record; the next works.
func TestNoFloatingNetwork(t *testing.T) {
	const fivehundred = `server error: AttributeError("'NoneType' object has no attribute 'ipam'")`
	_, c := startSim(t, func(cfg *Config) { cfg.NoFloatingNetwork = true; cfg.NetworkDeployTime = 0 })
	c.mustNetwork("net1", "10.6.0.0/24")
	i := c.mustCreate("a", 1, 1024, 8, map[string]any{"network": []map[string]any{{"network_uuid": "net1"}}})
	ifc := i["interfaces"].([]any)[0].(map[string]any)["uuid"].(string)
	m := wantError(t, c.do("POST", "/interfaces/"+ifc+"/float", nil), 500, "")
	if m["error"] != fivehundred {
		t.Errorf("first float: %v", m)
	}
	if f := c.do("GET", "/interfaces/"+ifc, nil).obj(t); f["floating"] != nil {
		t.Errorf("the failed float reserved %v", f["floating"])
	}
	nullBody(t, c.do("POST", "/interfaces/"+ifc+"/float", nil))
	if f := c.do("GET", "/interfaces/"+ifc, nil).obj(t); f["floating"] == nil {
		t.Error("the second float reserved nothing")
	}
	if a := c.do("POST", "/networks/net1/route", nil); a.status != 200 {
		t.Errorf("route after the record exists: %d %s", a.status, a.raw)
	}

	// Whichever call comes first: a create with a floating interface.
	_, c = startSim(t, func(cfg *Config) { cfg.NoFloatingNetwork = true; cfg.NetworkDeployTime = 0 })
	c.mustNetwork("net1", "10.6.0.0/24")
	a := c.create("b", 1, 1024, 8, map[string]any{"network": []map[string]any{{"network_uuid": "net1", "float": true}}})
	if m := wantError(t, a, 500, ""); m["error"] != fivehundred {
		t.Errorf("create with float: %v", m)
	}
	if got := stateOf(t, c, "b"); got != "initial" {
		t.Errorf("the instance the failed create left is %s", got)
	}

	// The 2026 server reads the record again after making it.
	cfg := testConfig()
	cfg.Generation, cfg.NoFloatingNetwork = Generation2026, true
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "(Generation 2024)") {
		t.Errorf("with the 2026 server: %v", err)
	}
}

// POST /upload answers the upload object's view; a blob shows what its
// node found its bytes to be (qemu-img info's keys).
func TestUploadViewAndBlobImageInfo(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		upload := func(data []byte) map[string]any {
			t.Helper()
			u := c.do("POST", "/upload", nil).obj(t)
			wantKeys(t, "upload", u, "uuid", "state", "metadata", "version", "node", "created_at")
			if u["state"] != "created" || u["version"] != float64(3) {
				t.Errorf("upload view: %v", u)
			}
			c.do("POST", "/upload/"+u["uuid"].(string), data, "Content-Type", "application/octet-stream")
			a := c.do("POST", "/artifacts/upload/img"+u["uuid"].(string)[:4], map[string]any{"upload_uuid": u["uuid"]}).obj(t)
			return c.do("GET", "/blobs/"+a["blob_uuid"].(string), nil).obj(t)
		}
		raw := upload(bytes.Repeat([]byte{7}, 300000))
		if raw["file format"] != "raw" || raw["virtual size"] != float64(300032) || raw["disk size"] != "296 KiB" || raw["mime-type"] != "application/octet-stream" {
			t.Errorf("a raw image (as the real server showed the captures' u2): %v", raw)
		}
		qcow := make([]byte, 4096)
		copy(qcow, "QFI\xfb")
		binary.BigEndian.PutUint32(qcow[4:], 3)
		binary.BigEndian.PutUint64(qcow[24:], 10<<30)
		if q := upload(qcow); q["file format"] != "qcow2" || q["virtual size"] != float64(10<<30) || q["disk size"] != "4 KiB" {
			t.Errorf("a qcow2 image: %v", q)
		}
		if list := c.do("GET", "/blobs", nil).list(t); len(list) != 2 || list[0]["file format"] == nil || list[0]["instances"] != nil {
			t.Errorf("blob list: %v", list)
		}
	})
}

// A 2024 instance view's disk_spec is each disk as sent, with
// "disk_base": null added to one without a base (the captures'
// s-create-web1) and nothing added to one with a base (the real node's
// n02-create-vm1).
func TestDiskSpec2024AddsDiskBaseOnlyWithoutABase(t *testing.T) {
	_, c := startSim(t, nil)
	a := c.mustCreate("a", 1, 1024, 8, map[string]any{"disk": []map[string]any{{"size": 8, "base": "http://10.233.0.2:8000/guest.qcow2"}, {"size": 2}, {"size": 2, "base": "none"}}})
	got, _ := json.Marshal(a["disk_spec"])
	want := `[{"base":"http://10.233.0.2:8000/guest.qcow2","size":8},{"disk_base":null,"size":2},{"base":"none","disk_base":null,"size":2}]`
	if string(got) != want {
		t.Errorf("disk_spec %s, want %s", got, want)
	}
}
