package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The answers a real 2024 node gave (shakenfist da448b1a with libvirt, the
// network daemon and the real in-guest agent in a TCG guest; SOURCES.md
// "client/testdata/sf2024/node"), recorded with curl -sS -i into
// client/testdata/sf2024/recorded/node-*.http, replayed against the
// simulator's 2024 generation: the same requests in the same order get the
// same status, Content-Type and body bytes, once the identifiers and
// times each server made up are paired (recordedPairs).

// recordedVarying are the keys whose values each server makes up: UUIDs
// and the guest file's times.
var recordedVarying = map[string]bool{
	"uuid": true, "instance_uuid": true, "blob_uuid": true, "content_blob": true,
	"stdout_blob": true, "stderr_blob": true, "atime": true, "ctime": true, "mtime": true,
}

// recordedPairs walks the real answer and the simulator's side by side and
// returns, for each varying value that differs, the real text and the
// simulator's, to be put in the real answer's place.
func recordedPairs(t *testing.T, real, sim []byte) map[string]string {
	t.Helper()
	decode := func(b []byte) any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil
		}
		return v
	}
	pairs := map[string]string{}
	var walk func(key string, r, s any)
	walk = func(key string, r, s any) {
		switch rv := r.(type) {
		case map[string]any:
			if sv, ok := s.(map[string]any); ok {
				for k, v := range rv {
					walk(k, v, sv[k])
				}
			}
		case []any:
			if sv, ok := s.([]any); ok && len(sv) == len(rv) {
				for n := range rv {
					walk(key, rv[n], sv[n])
				}
			}
		case string:
			if sv, ok := s.(string); ok && recordedVarying[key] && sv != rv {
				pairs[rv] = sv
			}
		case json.Number:
			if sv, ok := s.(json.Number); ok && recordedVarying[key] && sv != rv {
				pairs[rv.String()] = sv.String()
			}
		}
	}
	walk("", decode(real), decode(sim))
	return pairs
}

// wantRecorded compares the simulator's answer with a recorded one, the
// identifiers paired.
func wantRecorded(t *testing.T, file string, got answer, pairs map[string]string) {
	t.Helper()
	status, ct, want := readRecorded2024(t, file)
	for k, v := range recordedPairs(t, want, got.raw) {
		pairs[k] = v
	}
	for real, sim := range pairs {
		want = bytes.ReplaceAll(want, []byte(real), []byte(sim))
	}
	if got.status != status || got.header.Get("Content-Type") != ct || !bytes.Equal(got.raw, want) {
		t.Errorf("%s: the simulator answers %d %q\n%s\nthe real node %d %q\n%s", file, got.status, got.header.Get("Content-Type"), got.raw, status, ct, want)
	}
}

var recordedOpUUID = regexp.MustCompile(`"uuid": "([0-9a-f-]{36})"`)

func TestRecordedNode2024Agent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime, cfg.AgentBoot = 0, 0 })
		vm := c.mustCreate("vm1", 1, 1024, 2, nil)
		synctest.Wait() // created: its 0 s steps are timers of their own
		pairs := map[string]string{"0db9a888-8069-4d76-93a5-009ba0f08d1c": vm["uuid"].(string)}

		// The file the recording had uploaded (shakectl instance upload) and
		// put at /tmp/report.txt, mode 644.
		u := c.do("POST", "/upload", nil).obj(t)["uuid"].(string)
		c.do("POST", "/upload/"+u, []byte("report line 1\nreport line 2\n"), "Content-Type", "application/octet-stream")
		blob := c.do("POST", "/artifacts/upload/upload-to-vm1", map[string]any{"upload_uuid": u}).obj(t)["blob_uuid"].(string)
		if a := c.do("POST", "/instances/vm1/agent/put", map[string]any{"blob_uuid": blob, "path": "/tmp/report.txt", "mode": "644"}); a.status != 200 {
			t.Fatalf("put: %d %s", a.status, a.raw)
		}

		// In the order they were recorded: each an operation made with curl,
		// then read until it ended.
		ops := map[string]string{}
		for _, st := range []struct{ name, path, body string }{
			{"exec-ok", "/instances/vm1/agent/execute", `{"command_line":"sh -c 'echo hello; echo warning >&2'"}`},
			{"exec-exit3", "/instances/vm1/agent/execute", `{"command_line":"sh -c 'echo partial; echo failing >&2; exit 3'"}`},
			{"exec-notfound", "/instances/vm1/agent/execute", `{"command_line":"no-such-command"}`},
			{"exec-long", "/instances/vm1/agent/execute", `{"command_line":"seq 1 4000"}`},
			{"get-ok", "/instances/vm1/agent/get", `{"path":"/tmp/report.txt"}`},
			{"get-missing", "/instances/vm1/agent/get", `{"path":"/nonexistent/file"}`},
			{"put-ok", "/instances/vm1/agent/put", `{"blob_uuid":"` + blob + `","mode":"644","path":"/tmp/copy.txt"}`},
		} {
			post := c.do("POST", st.path, st.body)
			wantRecorded(t, "node-agent-"+st.name+"-post.http", post, pairs)
			m := recordedOpUUID.FindSubmatch(post.raw)
			if m == nil {
				t.Fatalf("%s: no operation in %s", st.name, post.raw)
			}
			wantRecorded(t, "node-agent-"+st.name+"-op.http", c.do("GET", "/agentoperations/"+string(m[1]), nil), pairs)
			ops[st.name] = string(m[1])
		}

		// The blobs the operations made: the long output's, and the
		// fetched file's, a blob of its own (the real node's get answered
		// one other than the put's) with the file's bytes; the operation
		// refers to each (reference_count 1, as the real node's views).
		var get struct {
			Results map[string]map[string]any `json:"results"`
		}
		if err := json.Unmarshal(c.do("GET", "/agentoperations/"+ops["get-ok"], nil).raw, &get); err != nil {
			t.Fatal(err)
		}
		content, _ := get.Results["0"]["content_blob"].(string)
		if content == "" || content == blob {
			t.Errorf("get's content_blob %q, the put's blob %s: want a blob of its own", content, blob)
		}
		if data := c.do("GET", "/blobs/"+content+"/data", nil); string(data.raw) != "report line 1\nreport line 2\n" {
			t.Errorf("the fetched file's blob holds %d %q", data.status, data.raw)
		}
		// The long output is the blob's data.
		var long struct {
			Results map[string]map[string]any `json:"results"`
		}
		if err := json.Unmarshal(c.do("GET", "/agentoperations/"+pairsKeyFor(t, pairs, "ab418b88-6e1f-472e-9355-256dc60bebb9"), nil).raw, &long); err != nil {
			t.Fatal(err)
		}
		data := c.do("GET", "/blobs/"+long.Results["0"]["stdout_blob"].(string)+"/data", nil)
		if len(data.raw) != 18893 || !bytes.HasPrefix(data.raw, []byte("1\n2\n3\n")) || !bytes.HasSuffix(data.raw, []byte("\n4000\n")) {
			t.Errorf("stdout blob: %d bytes, %.20q…", len(data.raw), data.raw)
		}
		for file, uuid := range map[string]any{"agent_get_blob.json": content, "agent_stdout_blob.json": long.Results["0"]["stdout_blob"]} {
			var real, sim map[string]any
			if err := json.Unmarshal(readClientTestdata(t, "sf2024/"+file), &real); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(c.do("GET", fmt.Sprint("/blobs/", uuid), nil).raw, &sim); err != nil {
				t.Fatal(err)
			}
			if sim["reference_count"] != real["reference_count"] || sim["mime-type"] != real["mime-type"] {
				t.Errorf("blob %v: reference_count %v, mime-type %v; the real node's (%s) %v, %v", uuid, sim["reference_count"], sim["mime-type"], file, real["reference_count"], real["mime-type"])
			}
		}

		// The 2024 server has no deadline: a "deadline" is an argument its
		// handler does not take.
		wantRecorded(t, "node-exec-deadline-field-400.http",
			c.do("POST", "/instances/vm1/agent/execute", `{"command_line":"uptime","deadline":30}`), pairs)

		// Powered off, the agent is not ready.
		if a := c.do("POST", "/instances/vm1/poweroff", nil); a.status != 200 {
			t.Fatalf("poweroff: %d %s", a.status, a.raw)
		}
		wantRecorded(t, "node-exec-poweredoff.http", c.do("POST", "/instances/vm1/agent/execute", `{"command_line":"uptime"}`), pairs)
	})
}

// readClientTestdata reads a file of client/testdata (the recorded
// bodies the client's tests reply with).
func readClientTestdata(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "client", "testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// processMetricKeys lists a process metrics answer's keys, one a line,
// with the instance's UUID (spelled with '_') as <instance>.
func processMetricKeys(t *testing.T, body []byte, instance string) string {
	t.Helper()
	var m map[string]float64
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("process metrics %q: %v", body, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strings.ReplaceAll(k, strings.ReplaceAll(instance, "-", "_"), "<instance>"))
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

// pairsKeyFor is the simulator's identifier paired with a real one.
func pairsKeyFor(t *testing.T, pairs map[string]string, real string) string {
	t.Helper()
	v, ok := pairs[real]
	if !ok {
		t.Fatalf("no simulator identifier paired with %s", real)
	}
	return v
}

// TestRecordedNode2024AgentNotReady: an instance created whose agent has
// not yet talked is the handler's 400; one not created is
// @requires_instance_active's 406 before it.
func TestRecordedNode2024AgentNotReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime, cfg.AgentBoot = 0, time.Hour })
		c.mustCreate("vm1", 1, 1024, 2, nil)
		synctest.Wait()
		wantRecorded(t, "node-exec-agent-not-ready.http", c.do("POST", "/instances/vm1/agent/execute", `{"command_line":"uptime"}`), map[string]string{})

		_, c = bubbleSim(t, nil)
		web1 := c.mustCreate("web1", 1, 1024, 8, nil)
		wantRecorded(t, "agent-exec-406.http", c.do("POST", "/instances/web1/agent/execute", `{"command-line":"uptime"}`),
			map[string]string{recordedUUIDs["web1"]: web1["uuid"].(string)})
	})
}

// TestRecordedNode2024Network: a running instance's interfaces on a network
// the network daemon created, a routed address, the namespace's network
// delete refused while the network is in use, the VDI console file of a
// running instance and a node's process metrics, against what the real
// node answered.
func TestRecordedNode2024Network(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := bubbleSim(t, func(cfg *Config) { cfg.CreateTime, cfg.AgentBoot = 0, 0 })
		net := c.mustNetwork("net1", "10.240.0.0/24")
		vm := c.create("vm1", 1, 1024, 2, map[string]any{"network": []map[string]any{{"network_uuid": net["uuid"], "float": true}}})
		synctest.Wait()
		if vm.status != 200 {
			t.Fatalf("create: %d %s", vm.status, vm.raw)
		}
		pairs := map[string]string{}
		for _, k := range []string{"network_uuid", "macaddr", "ipv4", "floating"} {
			recordedVarying[k] = true
		}
		t.Cleanup(func() {
			for _, k := range []string{"network_uuid", "macaddr", "ipv4", "floating"} {
				delete(recordedVarying, k)
			}
		})
		wantRecorded(t, "node-instance-interfaces.http", c.do("GET", "/instances/vm1/interfaces", nil), pairs)

		// A routed address is the address as a JSON string and a newline.
		routed := c.do("POST", "/networks/net1/route", nil)
		if routed.status != 200 || !regexp.MustCompile(`^"\d+\.\d+\.\d+\.\d+"\n$`).Match(routed.raw) {
			t.Errorf("add-routed: %d %q, the real node 200 %q", routed.status, routed.raw, `"192.168.20.170"`+"\n")
		}

		wantRecorded(t, "node-net-delete-all-inuse.http",
			c.do("DELETE", "/networks", `{"confirm":true,"namespace":"system"}`),
			map[string]string{"43324040-0215-4f52-be23-400996b097eb": net["uuid"].(string)})

		// The console file names the node, the console's port and its TLS
		// port; the real node's API host also had the SPICE CA (a ca line),
		// which the simulated one has not.
		status, ct, want := readRecorded2024(t, "node-vdi-helper-running.http")
		want = regexp.MustCompile(`(?m)^ca=.*\n`).ReplaceAll(want, nil)
		got := c.do("GET", "/instances/vm1/vdiconsolehelper", nil)
		ports := regexp.MustCompile(`(?m)^(port|tls-port)=(\d+)$`)
		gotPorts, wantPorts := ports.FindAllSubmatch(got.raw, -1), ports.FindAllSubmatch(want, -1)
		if len(gotPorts) != 2 || len(wantPorts) != 2 {
			t.Fatalf("ports: the simulator's %q, the real node's %q", got.raw, want)
		}
		for n := range wantPorts {
			want = bytes.Replace(want, wantPorts[n][0], gotPorts[n][0], 1)
		}
		node := c.do("GET", "/instances/vm1", nil).obj(t)["node"].(string)
		want = bytes.Replace(want, []byte("host=sf-1\n"), []byte("host="+node+"\n"), 1)
		if got.status != status || got.header.Get("Content-Type") != ct || !bytes.Equal(got.raw, want) {
			t.Errorf("vdiconsolehelper: the simulator answers %d %q %q, the real node %d %q %q", got.status, got.header.Get("Content-Type"), got.raw, status, ct, want)
		}

		// Process metrics: the processes the real node's resources daemon
		// recorded, its running instance's sidechannel monitor among
		// them (once a minute old), three figures each; the figures are
		// each node's own.
		advance(time.Minute)
		_, _, real := readRecorded2024(t, "node-processmetrics.http")
		metrics := c.do("GET", "/nodes/"+node+"/processmetrics", nil)
		realKeys := processMetricKeys(t, real, "0db9a888-8069-4d76-93a5-009ba0f08d1c")
		if simKeys := processMetricKeys(t, metrics.raw, vm.obj(t)["uuid"].(string)); simKeys != realKeys {
			t.Errorf("process metrics of\n%s\nthe real node's of\n%s", simKeys, realKeys)
		}
	})
}
