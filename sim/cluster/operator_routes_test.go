package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The routes behind sf-client's instance, network and node operator
// commands, in both generations, written from external_api/instance.py,
// snapshot.py, network.py, node.py and admin.py at da448b1a.

func TestInstanceMetadataSetDelete(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		c.mustCreate("a", 1, 1024, 10, nil)
		nullBody(t, c.do("PUT", "/instances/a/metadata/owner", map[string]any{"value": "alice"}))
		if md := c.do("GET", "/instances/a/metadata", nil).obj(t); md["owner"] != "alice" {
			t.Errorf("metadata %v", md)
		}
		nullBody(t, c.do("DELETE", "/instances/a/metadata/owner", nil))
		if md := c.do("GET", "/instances/a/metadata", nil).obj(t); len(md) != 0 {
			t.Errorf("after delete %v", md)
		}
		wantError(t, c.do("PUT", "/instances/a/metadata/tags", map[string]any{"value": "x"}), 400, "tags")
	})
}

func TestConsoleData(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.CreateTime = time.Second })
			c.mustCreate("a", 1, 1024, 10, nil)
			// No hypervisor has started it, so there is no console log
			// yet: an empty body, as the real server answered
			// (client/testdata/sf2024/recorded/console-empty.http).
			a := c.do("GET", "/instances/a/consoledata", nil)
			if a.status != 200 || a.header.Get("Content-Type") != "applicaton/octet-stream" || len(a.raw) != 0 {
				t.Fatalf("console before the instance started: %d %q %q", a.status, a.header.Get("Content-Type"), a.raw)
			}
			advance(2 * time.Second)
			a = c.do("GET", "/instances/a/consoledata", nil)
			if a.status != 200 || a.header.Get("Content-Type") != "applicaton/octet-stream" || !bytes.Contains(a.raw, []byte("Linux version")) {
				t.Fatalf("console: %d %q %q", a.status, a.header.Get("Content-Type"), a.raw)
			}
			short := c.do("GET", "/instances/a/consoledata", map[string]any{"length": 20})
			if len(short.raw) != 20 || !bytes.HasSuffix(a.raw, short.raw) {
				t.Errorf("length 20 gave %q, want the last 20 bytes of %q", short.raw, a.raw)
			}
			wantError(t, c.do("GET", "/instances/a/consoledata", map[string]any{"length": "lots"}), 400, "length is not an integer")
			nullBody(t, c.do("DELETE", "/instances/a/consoledata", nil))
			wantError(t, c.do("GET", "/instances/nosuch/consoledata", nil), 404, "instance not found")
		})
	})
}

func TestSnapshots(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.CreateTime = time.Second })
			i := c.mustCreate("a", 1, 1024, 10, map[string]any{"disk": []map[string]any{{"size": 10, "base": "debian:12"}, {"size": 5}}})
			wantError(t, c.do("POST", "/instances/a/snapshot", nil), 406, "is not ready (initial)")
			advance(2 * time.Second)
			snap := c.do("POST", "/instances/a/snapshot", nil)
			m := snap.obj(t)
			vda, _ := m["vda"].(map[string]any)
			if snap.status != 200 || len(m) != 1 || vda["source_url"] != "sf://instance/"+i["uuid"].(string)+"/vda" || vda["artifact_uuid"] == nil || vda["blob_uuid"] == nil {
				t.Fatalf("snapshot: %d %s", snap.status, snap.raw)
			}
			// A disk snapshotted again is a new version of its artifact
			// (Instance.snapshot: Artifact.from_url with create_if_new).
			all := c.do("POST", "/instances/a/snapshot", map[string]any{"all": true}).obj(t)
			if again, _ := all["vda"].(map[string]any); len(all) != 2 || again["artifact_uuid"] != vda["artifact_uuid"] || again["blob_uuid"] == vda["blob_uuid"] {
				t.Errorf("all disks: %v, the first snapshot %v", all, vda)
			}
			list := c.do("GET", "/instances/a/snapshot", nil).list(t)
			if len(list) != 3 || list[0]["blob_uuid"] != vda["blob_uuid"] || list[0]["artifact_type"] != "snapshot" {
				t.Errorf("snapshot listing %v", list)
			}
			arts := c.do("GET", "/artifacts", nil).list(t)
			if len(arts) != 2 || arts[0]["uuid"] != vda["artifact_uuid"] || arts[0]["index"] != float64(2) {
				t.Errorf("artifacts %v", arts)
			}
		})
	})
}

// A snapshot is answered before the node has written it, as the real
// node's n16-snapshot was: the artifact made for it reads initial, with
// no version and no blob_uuid, and the blob it names does not exist,
// until the node's queue worker is done (Config.SnapshotTime); then the
// artifact is created with that blob. An artifact deleted before then
// gets no version.
func TestSnapshotTakesTheNodesTime(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		synctest.Test(t, func(t *testing.T) {
			_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation, cfg.CreateTime, cfg.SnapshotTime = gen, 0, 40*time.Second })
			c.mustCreate("a", 1, 1024, 10, nil)
			c.mustCreate("b", 1, 1024, 10, nil)
			synctest.Wait()
			vda := c.do("POST", "/instances/a/snapshot", nil).obj(t)["vda"].(map[string]any)
			art := c.do("GET", "/artifacts/"+vda["artifact_uuid"].(string), nil).obj(t)
			if _, named := art["blob_uuid"]; art["state"] != "initial" || art["index"] != float64(0) || len(art["blobs"].(map[string]any)) != 0 || named {
				t.Errorf("the artifact while the node writes the snapshot: %v", art)
			}
			wantError(t, c.do("GET", "/blobs/"+vda["blob_uuid"].(string), nil), 404, "blob not found")
			advance(40 * time.Second)
			art = c.do("GET", "/artifacts/"+vda["artifact_uuid"].(string), nil).obj(t)
			if art["state"] != "created" || art["index"] != float64(1) || art["blob_uuid"] != vda["blob_uuid"] {
				t.Errorf("the artifact once written: %v, the snapshot %v", art, vda)
			}
			if b := c.do("GET", "/blobs/"+vda["blob_uuid"].(string), nil); b.status != 200 {
				t.Errorf("the snapshot's blob: %d %s", b.status, b.raw)
			}

			gone := c.do("POST", "/instances/b/snapshot", nil).obj(t)["vda"].(map[string]any)
			if d := c.do("DELETE", "/artifacts/"+gone["artifact_uuid"].(string), nil); d.status != 200 {
				t.Fatalf("delete: %d %s", d.status, d.raw)
			}
			advance(40 * time.Second)
			wantError(t, c.do("GET", "/blobs/"+gone["blob_uuid"].(string), nil), 404, "blob not found")
		})
	})
}

func TestDeleteAllInstances(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		if a := c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ci"}); a.status != 200 {
			t.Fatalf("namespace ci: %d %s", a.status, a.raw)
		}
		a1 := c.mustCreate("a", 1, 1024, 10, nil)
		a2 := c.mustCreate("b", 1, 1024, 10, map[string]any{"namespace": "ci"})
		wantError(t, c.do("DELETE", "/instances", map[string]any{"confirm": "yes", "namespace": "system"}), 400, "parameter confirm is not set true")
		wantError(t, c.do("DELETE", "/instances", map[string]any{"confirm": true}), 400, "system user must specify parameter namespace")
		wantError(t, c.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "nosuch"}), 404, "namespace not found")
		// "system" names every namespace's instances (namespace_filter:
		// the real 2024 server did so in the captures' da1); 2024 answers
		// them in etcd's key order, by UUID; 2026 oldest first.
		a := c.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "system"})
		uuids := []string{a1["uuid"].(string), a2["uuid"].(string)}
		if gen == Generation2024 {
			sort.Strings(uuids)
		}
		// json.dumps and a newline, as the real server's (client/testdata/
		// sf2024/recorded/del-all.http).
		want := fmt.Sprintf("[\"%s\", \"%s\"]\n", uuids[0], uuids[1])
		if a.status != 200 || string(a.raw) != want {
			t.Errorf("delete all: %d %s, want %s", a.status, a.raw, want)
		}
		for _, i := range c.do("GET", "/instances", map[string]any{"all": true}).list(t) {
			if i["state"] != "deleted" {
				t.Errorf("%s is %s after delete all", i["name"], i["state"])
			}
		}
		// Again: 2024 selects with no state prefilter, so the deleted
		// records still kept are named again (and not deleted again).
		again := c.do("DELETE", "/instances", map[string]any{"confirm": true, "namespace": "ci"})
		want = "[]\n"
		if gen == Generation2024 {
			want = fmt.Sprintf("[\"%s\"]\n", a2["uuid"])
		}
		if again.status != 200 || string(again.raw) != want {
			t.Errorf("delete all again: %d %s, want %s", again.status, again.raw, want)
		}
	})
}

func TestNetworkOperatorRoutes(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		n := c.mustNetwork("net1", "10.5.0.0/29")
		i := c.mustCreate("a", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		ip := i["interfaces"].([]any)[0].(map[string]any)["ipv4"].(string)

		ev := c.do("GET", "/networks/net1/events", nil).list(t)
		if len(ev) == 0 || ev[0]["message"] != "create request from REST API" {
			t.Errorf("network events %v", ev)
		}
		ifs := c.do("GET", "/networks/net1/interfaces", nil).list(t)
		if len(ifs) != 1 || ifs[0]["instance_uuid"] != i["uuid"] {
			t.Errorf("network interfaces %v", ifs)
		}
		addrs := c.do("GET", "/networks/net1/addresses", nil).list(t)
		types := map[string]string{}
		for _, a := range addrs {
			wantKeys(t, "reservation", a, "address", "user", "when", "type", "comment")
			types[a["address"].(string)] = a["type"].(string)
		}
		if types["10.5.0.0"] != "network" || types["10.5.0.1"] != "gateway" || types["10.5.0.7"] != "broadcast" || types[ip] != "instance" {
			t.Errorf("address reservations %v", types)
		}
		if gen == Generation2024 {
			// In etcd's key order, by address text, as the real node's
			// n17d listed them.
			var order []string
			for _, a := range addrs {
				order = append(order, a["address"].(string))
			}
			if !sort.StringsAreSorted(order) || len(order) != 4 {
				t.Errorf("2024 address reservations in the order %q", order)
			}
		}
		ping := c.do("GET", "/networks/net1/ping/"+ip, nil).obj(t)
		if out := fmt.Sprint(ping["stdout"]); !strings.Contains(out, "10 received") {
			t.Errorf("ping of the instance: %v", ping)
		}
		if out := fmt.Sprint(c.do("GET", "/networks/net1/ping/10.5.0.6", nil).obj(t)["stdout"]); !strings.Contains(out, "100% packet loss") {
			t.Errorf("ping of a free address: %s", out)
		}
		wantError(t, c.do("GET", "/networks/net1/ping/10.9.9.9", nil), 400, "ping request for address outside network block")
		wantError(t, c.do("GET", "/networks/net1/ping/banana", nil), 400, "invalid address")
		nullBody(t, c.do("PUT", "/networks/net1/metadata/owner", map[string]any{"value": "alice"}))
		nullBody(t, c.do("DELETE", "/networks/net1/metadata/owner", nil))

		// delete-all without clean_wait leaves the busy network: a 403
		// whose error is an object.
		a := c.do("DELETE", "/networks", map[string]any{"confirm": true, "namespace": "system"})
		m := a.obj(t)
		obj, _ := m["error"].(map[string]any)
		if a.status != 403 || fmt.Sprint(obj["unable"]) != "["+n["uuid"].(string)+"]" {
			t.Errorf("delete all with a busy network: %d %s", a.status, a.raw)
		}
	})
}

func TestNodeEventsAndResources(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		i := c.mustCreate("a", 1, 1024, 10, map[string]any{"placed_on": "node2"})
		ev := c.do("GET", "/nodes/node2/events", nil).list(t)
		if len(ev) != 2 || ev[0]["type"] != "resources" || ev[1]["message"] != "instance placed" {
			t.Errorf("node2 events %v", ev)
		}
		// sf-client's node resources: the newest resources event.
		res1 := c.do("GET", "/nodes/node2/events", map[string]any{"event_type": "resources", "limit": 1}).list(t)
		if extra, _ := res1[0]["extra"].(map[string]any); len(res1) != 1 || extra["instances_total"] != float64(1) || extra["cpu_max"] != float64(4) {
			t.Errorf("node2 resources %v", res1)
		}
		if ev := c.do("GET", "/nodes/node1/events", map[string]any{"event_type": "audit"}).list(t); len(ev) != 0 {
			t.Errorf("node1 audit events %v", ev)
		}
		res := c.do("GET", "/admin/resources", nil)
		switch gen {
		case Generation2024:
			if res.status != 404 || !bytes.Contains(res.raw, []byte("<title>404 Not Found</title>")) {
				t.Errorf("2024 /admin/resources: %d %s, want the unrouted HTML 404", res.status, res.raw)
			}
		case Generation2026:
			m := res.obj(t)
			per, _ := m["per_node"].(map[string]any)
			n2, _ := per[i["node"].(string)].(map[string]any)
			if res.status != 200 || len(per) != 2 || n2["instances_total"] != float64(1) {
				t.Errorf("2026 /admin/resources: %d %s", res.status, res.raw)
			}
			wantKeys(t, "total", m["total"].(map[string]any), "cpu_available", "ram_available")
		}
	})
}

func TestAddInterfaceAndDeleteNode(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		n := c.mustNetwork("net1", "10.5.0.0/29")
		c.mustCreate("a", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
		a := c.do("POST", "/instances/a/interfaces", map[string]any{"network": map[string]any{"network_uuid": "net1", "address": "10.5.0.6"}})
		f := a.obj(t)
		if a.status != 200 || f["order"] != float64(1) || f["ipv4"] != "10.5.0.6" || f["network_uuid"] != n["uuid"] {
			t.Fatalf("add interface: %d %s", a.status, a.raw)
		}
		if ifs := c.do("GET", "/instances/a/interfaces", nil).list(t); len(ifs) != 2 {
			t.Errorf("interfaces after hot plug: %v", ifs)
		}
		wantError(t, c.do("POST", "/instances/a/interfaces", map[string]any{"network": map[string]any{"network_uuid": "net1", "address": "10.5.0.6"}}), 409, "in use")
		wantError(t, c.do("POST", "/instances/a/interfaces", map[string]any{"network": map[string]any{"network_uuid": "nosuch"}}), 404, "network nosuch not found")

		del := c.do("DELETE", "/nodes/node2", nil)
		if del.status != 200 || del.obj(t)["state"] != "deleted" {
			t.Fatalf("delete node: %d %s", del.status, del.raw)
		}
		wantError(t, c.create("b", 1, 1024, 10, map[string]any{"placed_on": "node2"}), 404, "not ready")
		for k := range 3 { // every later create lands on node1
			i := c.mustCreate(fmt.Sprintf("c%d", k), 1, 256, 1, nil)
			if want := map[string]string{Generation2024: "node1", Generation2026: nodeUUID("node1")}[gen]; i["node"] != want {
				t.Errorf("placed on %v after node2 was deleted", i["node"])
			}
		}
		wantError(t, c.do("DELETE", "/nodes/node9", nil), 404, "node not found")
	})
}

// A node's process metrics are what its resources daemon last wrote: the
// daemons (the eventlog and the active cluster daemon on the node with
// every role, an idle cluster daemon on the others) and a sidechannel
// monitor per running instance with the agent's channel, once a process
// is a minute old. A cluster whose resources daemons have written none
// answers {}, as the real 2024 API server with none running did (the
// captures' h1-cpuhogs: "{}\n").
func TestNodeProcessMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime, cfg.AgentBoot = 0, 0 })
		procs := func(node string) map[string]bool {
			t.Helper()
			var m map[string]float64
			a := c.do("GET", "/nodes/"+node+"/processmetrics", nil)
			if err := json.Unmarshal(a.raw, &m); err != nil || a.status != 200 {
				t.Fatalf("%s: %d %s", node, a.status, a.raw)
			}
			out := map[string]bool{}
			for k := range m {
				if p, ok := strings.CutPrefix(k, "process_age_"); ok {
					out[p] = true
				}
			}
			return out
		}
		vm := c.mustCreate("vm1", 1, 1024, 2, nil)
		noagent := c.mustCreate("noagent", 1, 1024, 2, map[string]any{"side_channels": []string{}})
		synctest.Wait()
		monitor := "sf_sidechannel_" + strings.ReplaceAll(vm["uuid"].(string), "-", "_")
		node := c.do("GET", "/instances/vm1", nil).obj(t)["node"].(string)

		if p := procs(node); p[monitor] || !p["sf_sidechannel"] || !p["sh"] {
			t.Errorf("a monitor under a minute old is not recorded; the daemons are: %v", p)
		}
		advance(time.Minute)
		noagentNode := c.do("GET", "/instances/noagent", nil).obj(t)["node"].(string)
		if p, q := procs(node), procs(noagentNode); !p[monitor] || q["sf_sidechannel_"+strings.ReplaceAll(noagent["uuid"].(string), "-", "_")] {
			t.Errorf("the monitor of an instance with the agent's channel, only: %v; %v", p, q)
		}
		if p1, p2 := procs("node1"), procs("node2"); !p1["sf_eventlog"] || !p1["sf_cluster_active"] || p2["sf_eventlog"] || !p2["sf_cluster_idle"] || p2["sf_cluster_active"] {
			t.Errorf("roles: node1 %v, node2 %v", p1, p2)
		}
		if a := c.do("POST", "/instances/vm1/poweroff", nil); a.status != 200 {
			t.Fatalf("poweroff: %d %s", a.status, a.raw)
		}
		if p := procs(node); p[monitor] {
			t.Errorf("a powered off instance has no monitor: %v", p)
		}

		_, c = bubbleSim(t, func(cfg *Config) { cfg.NoProcessMetrics = true })
		for _, n := range []string{"node1", "node2"} {
			if a := c.do("GET", "/nodes/"+n+"/processmetrics", nil); a.status != 200 || string(a.raw) != "{}\n" {
				t.Errorf("%s with no resources daemon: %d %q, the real server's 200 \"{}\\n\"", n, a.status, a.raw)
			}
		}
	})
}
