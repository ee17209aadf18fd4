package cluster

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"
)

// The answers of the real 2024 server (shakenfist da448b1a under gunicorn
// with etcd, no hypervisor), recorded on loopback into
// client/testdata/sf2024/recorded (SOURCES.md), replayed against the
// simulator's 2024 generation: the same request in the same situation
// gets the same status, Content-Type and body bytes. The recorded UUIDs
// are the real server's; the simulator's own are put in their place.

// recordedUUIDs are the objects the recording created, by the name the
// replay gives the simulator's counterpart.
var recordedUUIDs = map[string]string{
	"web1": "8518b409-fe1b-45e5-83c8-b246c9002d6b",
	"web2": "cb942941-eae7-4641-bf2d-98d7cfad992e",
}

// readRecorded2024 parses one recorded exchange's answer.
func readRecorded2024(t *testing.T, name string) (status int, contentType string, body []byte) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "client", "testdata", "sf2024", "recorded", name))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

func TestRecorded2024Answers(t *testing.T) {
	// The teardown of a deleted instance outlasts the test, so that its
	// node is still deleting it when the locks are read at the end.
	_, c := startSim(t, func(cfg *Config) { cfg.TeardownLag = time.Hour })
	if a := c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ci"}); a.status != 200 {
		t.Fatalf("namespace ci: %d %s", a.status, a.raw)
	}
	if a := c.do("POST", "/auth/namespaces", map[string]any{"namespace": "empty"}); a.status != 200 {
		t.Fatalf("namespace empty: %d %s", a.status, a.raw)
	}
	sims, nodes := map[string]string{}, map[string]string{}
	for _, name := range []string{"web1", "web2"} {
		i := c.mustCreate(name, 1, 1024, 8, map[string]any{"namespace": "ci"})
		sims[name], nodes[name] = i["uuid"].(string), i["node"].(string)
	}
	node := nodes["web2"]
	sysArt := c.do("POST", "/artifacts", map[string]any{"url": "debian:11"})
	ciArt := c.do("POST", "/artifacts", map[string]any{"url": "https://images.example.com/mine.qcow2", "namespace": "ci"})
	if sysArt.status != 200 || ciArt.status != 200 {
		t.Fatalf("artifacts: %d %s, %d %s", sysArt.status, sysArt.raw, ciArt.status, ciArt.raw)
	}
	ciArtUUID := ciArt.obj(t)["uuid"].(string)

	// The console file of an instance not running names its node and
	// Python's None for the port.
	status, ct, want := readRecorded2024(t, "vdi-helper.http")
	want = bytes.ReplaceAll(want, []byte("host=sf-1\n"), []byte("host="+node+"\n"))
	if got := c.do("GET", "/instances/web2/vdiconsolehelper", nil); got.status != status || got.header.Get("Content-Type") != ct || !bytes.Equal(got.raw, want) {
		t.Errorf("vdiconsolehelper: the simulator answers %d %q %q, the real server %d %q %q", got.status, got.header.Get("Content-Type"), got.raw, status, ct, want)
	}

	// Nothing is being worked on, so no lock is held (the recording ran
	// no cluster daemon): {} and a newline.
	status, ct, want = readRecorded2024(t, "admin-locks-empty.http")
	if got := c.do("GET", "/admin/locks", nil); got.status != status || got.header.Get("Content-Type") != ct || !bytes.Equal(got.raw, want) {
		t.Errorf("admin locks: the simulator answers %d %q %q, the real server %d %q %q", got.status, got.header.Get("Content-Type"), got.raw, status, ct, want)
	}

	// In the order they were recorded: each step's situation is the one
	// the steps before it left.
	steps := []struct {
		file, method, path string
		body               string
	}{
		{"inst-put-affinity.http", "PUT", "/instances/web1/metadata/affinity", `{"value":{"fastdisk":10}}`},
		{"inst-put-affinity-400-nested.http", "PUT", "/instances/web1/metadata/affinity", `{"value":{"cpu":{"webservers":-10}}}`},
		{"inst-put-affinity-400-notint.http", "PUT", "/instances/web1/metadata/affinity", `{"value":{"fastdisk":"high"}}`},
		{"inst-put-affinity-400-notdict.http", "PUT", "/instances/web1/metadata/affinity", `{"value":"fastdisk"}`},
		{"inst-put-tags-400.http", "PUT", "/instances/web1/metadata/tags", `{"value":"web"}`},
		{"inst-put-novalue-400.http", "PUT", "/instances/web1/metadata/owner", `{}`},
		{"inst-put-tags.http", "PUT", "/instances/web1/metadata/tags", `{"value":["web","prod"]}`},
		{"inst-get-metadata.http", "GET", "/instances/web1/metadata", ""},
		{"inst-delete-tags.http", "DELETE", "/instances/web1/metadata/tags", ""},
		{"inst-delete-tags-again.http", "DELETE", "/instances/web1/metadata/tags", ""},
		{"inst-delete-metadata-404.http", "DELETE", "/instances/nosuch/metadata/tags", ""},
		{"inst-put-metadata-404.http", "PUT", "/instances/nosuch/metadata/tags", `{"value":["x"]}`},
		{"console-400.http", "GET", "/instances/web1/consoledata", `{"length":"lots"}`},
		{"console-delete.http", "DELETE", "/instances/web1/consoledata", ""},
		{"ns-delete-400.http", "DELETE", "/auth/namespaces/ci", ""},
		{"art-put-metadata.http", "PUT", "/artifacts/debian:11/metadata/owner", `{"value":"ci-team"}`},
		{"art-delete-metadata.http", "DELETE", "/artifacts/debian:11/metadata/owner", ""},
		{"art-delete-metadata-again.http", "DELETE", "/artifacts/debian:11/metadata/owner", ""},
		{"art-delete-metadata-404.http", "DELETE", "/artifacts/nosuch/metadata/owner", ""},
		{"art-share-403.http", "POST", "/artifacts/" + ciArtUUID + "/share", ""},
		{"art-share-404.http", "POST", "/artifacts/nosuch/share", ""},
		{"del-all-400-nons.http", "DELETE", "/instances", `{"confirm":true}`},
		{"del-all-400-noconfirm.http", "DELETE", "/instances", `{"namespace":"ci"}`},
		{"del-all-empty.http", "DELETE", "/instances", `{"confirm":true,"namespace":"nobody"}`},
		{"del-all-emptyns.http", "DELETE", "/instances", `{"confirm":true,"namespace":"empty"}`},
		{"del-all.http", "DELETE", "/instances", `{"confirm":true,"namespace":"ci"}`},
	}
	for _, st := range steps {
		status, ct, want := readRecorded2024(t, st.file)
		for name, real := range recordedUUIDs {
			want = bytes.ReplaceAll(want, []byte(real), []byte(sims[name]))
		}
		var body any
		if st.body != "" {
			body = st.body
		}
		got := c.do(st.method, st.path, body)
		if st.file == "del-all.http" {
			// The UUIDs come in etcd's key order, so the simulator's
			// own UUIDs may come in another order than the real ones:
			// the same UUIDs, written as json.dumps writes the
			// simulator's order.
			want = sameUUIDsInOrder(t, want, got.raw)
		}
		if got.status != status || got.header.Get("Content-Type") != ct || !bytes.Equal(got.raw, want) {
			t.Errorf("%s %s (%s): the simulator answers %d %q %q, the real server %d %q %q",
				st.method, st.path, st.file, got.status, got.header.Get("Content-Type"), got.raw, status, ct, want)
		}
	}

	// Sharing answers the artifact's view with shared true, and again
	// when it is already shared; unsharing an unshared one is a 403.
	for _, st := range []struct{ file, path string }{
		{"art-share.http", "/artifacts/debian:11/share"},
		{"art-share-again.http", "/artifacts/debian:11/share"},
		{"art-unshare.http", "/artifacts/debian:11/unshare"},
		{"art-unshare-403.http", "/artifacts/debian:11/unshare"},
	} {
		status, _, want := readRecorded2024(t, st.file)
		got := c.do("POST", st.path, nil)
		if got.status != status {
			t.Errorf("POST %s: %d %s, the real server %d %s", st.path, got.status, got.raw, status, want)
			continue
		}
		if status != 200 {
			if !bytes.Equal(got.raw, want) {
				t.Errorf("POST %s: %s, the real server %s", st.path, got.raw, want)
			}
			continue
		}
		var real map[string]any
		if err := jsonUnmarshal(want, &real); err != nil {
			t.Fatal(err)
		}
		sim := got.obj(t)
		if sim["shared"] != real["shared"] || sim["namespace"] != real["namespace"] || sim["source_url"] != real["source_url"] {
			t.Errorf("POST %s: %s, the real server %s", st.path, got.raw, want)
		}
		for k := range real {
			if _, ok := sim[k]; !ok {
				t.Errorf("POST %s: no %q in %s", st.path, k, got.raw)
			}
		}
	}
	// del-all deleted web1, and its node is still tearing it down: the
	// simulator holds the instance's delete lock, as a process of the
	// recording held web1's (admin-locks-held.http), with the same fields.
	_, _, held := readRecorded2024(t, "admin-locks-held.http")
	var real, sim map[string]map[string]any
	if err := jsonUnmarshal(held, &real); err != nil {
		t.Fatal(err)
	}
	if err := jsonUnmarshal(c.do("GET", "/admin/locks", nil).raw, &sim); err != nil {
		t.Fatal(err)
	}
	realLock, simLock := real["/sflocks/sf/instance/"+recordedUUIDs["web1"]], sim["/sflocks/sf/instance/"+sims["web1"]]
	if len(simLock) != len(realLock) || simLock["operation"] != realLock["operation"] || simLock["node"] != nodes["web1"] {
		t.Errorf("web1's delete lock %v, the real server's %v (node %s)", simLock, realLock, nodes["web1"])
	}
	for k := range realLock {
		if _, ok := simLock[k]; !ok {
			t.Errorf("delete lock without %q: %v", k, simLock)
		}
	}
	if len(sim) != 2 {
		t.Errorf("locks %v, want web1's and web2's delete locks", sim)
	}
}

// sameUUIDsInOrder is want rewritten in got's order when the two JSON
// lists hold the same UUIDs; else want as it is.
func sameUUIDsInOrder(t *testing.T, want, got []byte) []byte {
	t.Helper()
	var w, g []string
	if jsonUnmarshal(want, &w) != nil || jsonUnmarshal(got, &g) != nil {
		return want
	}
	ws, gs := slices.Clone(w), slices.Clone(g)
	sort.Strings(ws)
	sort.Strings(gs)
	if !slices.Equal(ws, gs) {
		return want
	}
	out, err := pyJSON(g)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
