package capture

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Both forms the captures use are read (the commands/ folders' header
// pairs and sequence in the file name; sf-client's header object and
// "seq"), in the order they were made whatever the folders; other .json
// files are not exchanges.
func TestLoadReadsBothFormsInOrder(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b-case", "0002-get-_instances-200.json"), `{
	 "request": {"method": "GET", "path": "/instances", "headers": [["Accept", "application/json"], ["Authorization", "Bearer <jwt ...>"]], "body": "{\"all\":false}", "body_b64": null},
	 "response": {"status": 200, "reason": "OK", "headers": [["Content-Type", "application/json"]], "body": "[]\n", "body_b64": null}}`)
	write(t, filepath.Join(dir, "a-case", "0010-post-upload-200.json"), `{
	 "seq": 3, "client": "",
	 "request": {"method": "POST", "path": "/upload/x", "headers": {"User-Agent": "sf"}, "body": null, "body_b64": "AAEC"},
	 "response": {"status": 200, "headers": [], "body": "3\n"}}`)
	write(t, filepath.Join(dir, "0001-setup.json"), `{"request": {"method": "POST", "path": "/auth", "body": "{}"}}`)
	write(t, filepath.Join(dir, "conformance.json"), `{"server": "2024"}`)
	write(t, filepath.Join(dir, "notes.txt"), `not an exchange`)

	xs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range xs {
		got = append(got, x.String())
	}
	want := []string{
		"0001 POST /auth (0001-setup.json)",
		"0002 GET /instances (b-case/0002-get-_instances-200.json)",
		"0003 POST /upload/x (a-case/0010-post-upload-200.json)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("loaded\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if xs[0].Response != nil {
		t.Errorf("a request without a response is a setup step: %+v", xs[0].Response)
	}
	if h := xs[1].Request.Header.Get("Authorization"); h != "Bearer <jwt ...>" {
		t.Errorf("header pairs: Authorization %q", h)
	}
	if string(xs[1].Request.Body) != `{"all":false}` || xs[1].Response.Status != 200 || xs[1].Response.Header.Get("Content-Type") != "application/json" {
		t.Errorf("exchange 2: %+v %+v", xs[1].Request, xs[1].Response)
	}
	if ua := xs[2].Request.Header.Get("User-Agent"); ua != "sf" || string(xs[2].Request.Body) != "\x00\x01\x02" {
		t.Errorf("exchange 3: header object %q, body_b64 %q", ua, xs[2].Request.Body)
	}
}

// A response may be kept elsewhere: a file of its body, or a row of a
// table of recorded refusals (status, headers and body from the row).
func TestLoadReadsAnswersKeptElsewhere(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "answers", "claim.json"), `{"uuid": "c"}`)
	write(t, filepath.Join(dir, "answers", "refusals.json"), `[
	 {"name": "other", "status": 400, "body": {"error": "no"}},
	 {"name": "507 transient", "status": 507, "header": {"Retry-After": "15"}, "body": {"error": "full", "status": 507, "transient": true}}]`)
	write(t, filepath.Join(dir, "set", "0001-claim.json"), `{"request": {"method": "GET", "path": "/c"},
	 "response": {"status": 200, "headers": [["Content-Type", "application/json"]], "body_file": "../answers/claim.json"}}`)
	write(t, filepath.Join(dir, "set", "0002-refusal.json"), `{"request": {"method": "POST", "path": "/instances"},
	 "source": "a row", "response": {"body_file": "../answers/refusals.json", "body_row": "507 transient"}}`)
	xs, err := Load(filepath.Join(dir, "set"))
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 2 || string(xs[0].Response.Body) != `{"uuid": "c"}` {
		t.Fatalf("body_file: %+v", xs)
	}
	r := xs[1].Response
	if r.Status != 507 || r.Header.Get("Retry-After") != "15" || r.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(r.Body), `"transient": true`) || xs[1].Source != "a row" {
		t.Errorf("body_row: %d %v %s", r.Status, r.Header, r.Body)
	}

	write(t, filepath.Join(dir, "bad", "0001-x.json"), `{"request": {"method": "GET", "path": "/"}, "response": {"body_file": "../answers/refusals.json", "body_row": "nosuch"}}`)
	if _, err := Load(filepath.Join(dir, "bad")); err == nil || !strings.Contains(err.Error(), `no row "nosuch"`) {
		t.Errorf("a missing row: %v", err)
	}
	write(t, filepath.Join(dir, "bad2", "0001-x.json"), `{"request": {"path": "/"}}`)
	if _, err := Load(filepath.Join(dir, "bad2")); err == nil || !strings.Contains(err.Error(), "not an exchange") {
		t.Errorf("a request without a method: %v", err)
	}
}

// Identifiers are paired where both answers hold one at the same place,
// and translated in text as whole tokens.
func TestIDsLearnAndTranslate(t *testing.T) {
	ids := NewIDs()
	realUUID, simUUID := "8ef411fc-ae95-4ce7-a340-e8f8065612b4", "11111111-2222-4333-8444-555555555555"
	real, _ := DecodeJSON([]byte(`{"uuid": "` + realUUID + `", "name": "web1", "node": "sf-1", "state": "initial",
	  "interfaces": [{"uuid": "58f484d6-8d74-462e-9dc4-4a68e7341e8f", "ipv4": "10.10.0.249", "macaddr": "02:00:00:fb:52:d8"}]}`))
	sim, _ := DecodeJSON([]byte(`{"uuid": "` + simUUID + `", "name": "web1", "node": "node1", "state": "initial",
	  "interfaces": [{"uuid": "66666666-7777-4888-9999-aaaaaaaaaaaa", "ipv4": "10.10.0.2", "macaddr": "02:00:00:01:02:03"}]}`))
	ids.Learn(real, sim)
	for r, s := range map[string]string{realUUID: simUUID, "sf-1": "node1", "10.10.0.249": "10.10.0.2", "58f484d6-8d74-462e-9dc4-4a68e7341e8f": "66666666-7777-4888-9999-aaaaaaaaaaaa"} {
		if got, ok := ids.Sim(r); !ok || got != s {
			t.Errorf("%s paired with %q, want %q", r, got, s)
		}
	}
	if _, ok := ids.Sim("02:00:00:fb:52:d8"); ok {
		t.Error("a MAC address is not an identifier a request names")
	}
	// The first pairing wins: web2 on the same real node, on another of
	// the simulator's, does not move sf-1.
	ids.Learn(map[string]any{"node": "sf-1"}, map[string]any{"node": "node2"})
	if got, _ := ids.Sim("sf-1"); got != "node1" {
		t.Errorf("sf-1 re-paired with %s", got)
	}
	// A lone address answered (a routed address) is paired; a list of
	// nodes is paired by position when nothing else pairs it; a list of
	// UUIDs (a delete-all's) is not: it comes in each server's order.
	ids.Learn("192.168.20.108", "192.168.10.3")
	nodesReal, _ := DecodeJSON([]byte(`[{"uuid": "sf-1", "name": "sf-1"}, {"uuid": "sf-2", "name": "sf-2"}]`))
	nodesSim, _ := DecodeJSON([]byte(`[{"uuid": "node1", "name": "node1"}, {"uuid": "node2", "name": "node2"}]`))
	ids.Learn(nodesReal, nodesSim)
	ids.Learn([]any{"aaaaaaaa-0000-4000-8000-000000000001"}, []any{"bbbbbbbb-0000-4000-8000-000000000001"})
	if _, ok := ids.Sim("aaaaaaaa-0000-4000-8000-000000000001"); ok {
		t.Error("a list of UUIDs was paired by position")
	}
	got := ids.Translate(`/networks/net1/route/192.168.20.108 host=sf-1 host=sf-10 sf-2 {"instance":"` + realUUID + `"} 10.10.0.2490`)
	want := `/networks/net1/route/192.168.10.3 host=node1 host=sf-10 node2 {"instance":"` + simUUID + `"} 10.10.0.2490`
	if got != want {
		t.Errorf("translated\n%s\nwant\n%s", got, want)
	}

	// A UUID a server spelled with '_' inside a name (a process metric of
	// the instance's sidechannel monitor) is the simulator's, spelled so;
	// one not paired stays. An object's keys are translated as its
	// values are.
	under := func(u string) string { return strings.ReplaceAll(u, "-", "_") }
	metrics, _ := DecodeJSON([]byte(`{"process_age_sf_sidechannel_` + under(realUUID) + `": 204.6,
	  "process_age_sf_sidechannel_` + under("aaaaaaaa-0000-4000-8000-000000000001") + `": 1, "sf-1": "` + realUUID + `"}`))
	gotV := ids.TranslateValue(metrics).(map[string]any)
	for _, k := range []string{"process_age_sf_sidechannel_" + under(simUUID), "process_age_sf_sidechannel_" + under("aaaaaaaa-0000-4000-8000-000000000001"), "node1"} {
		if _, ok := gotV[k]; !ok {
			t.Errorf("translated keys %v: no %s", gotV, k)
		}
	}
	if gotV["node1"] != simUUID || len(gotV) != 3 {
		t.Errorf("translated %v", gotV)
	}
}

func resp(status int, ct, body string) *Response {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return &Response{Status: status, Header: h, Body: []byte(body)}
}

// Compare says what differs, and only that.
func TestCompare(t *testing.T) {
	ids := NewIDs()
	ids.Set("8ef411fc-ae95-4ce7-a340-e8f8065612b4", "11111111-2222-4333-8444-555555555555")
	ids.Set("24b88204-95ac-4a84-bb44-4ce09a7eb727", "22222222-2222-4333-8444-555555555555")
	const js = "application/json"
	for _, tc := range []struct {
		name      string
		req       string
		real, sim *Response
		want      []string // parts of each difference, in order; none: the same
	}{
		{"same error text with the simulator's UUID", "",
			resp(406, js, `{"error": "instance 8ef411fc-ae95-4ce7-a340-e8f8065612b4 is not ready (initial)", "status": 406}`),
			resp(406, js, `{"error": "instance 11111111-2222-4333-8444-555555555555 is not ready (initial)", "status": 406}`), nil},
		{"another error text", "",
			resp(406, js, `{"error": "instance 8ef411fc-ae95-4ce7-a340-e8f8065612b4 is not ready (initial)", "status": 406}`),
			resp(406, js, `{"error": "instance agent not ready", "status": 406}`), []string{"a different body"}},
		{"status and content type", "",
			resp(200, js, "null\n"), resp(200, "application/x-virt-viewer", "[virt-viewer]\n"),
			[]string{`Content-Type "application/x-virt-viewer"`, "answered JSON, the simulator did not"}},
		{"another status", "", resp(403, js, `{"error": "x", "status": 403}`), resp(200, js, "null"), []string{"status 200, the real server's 403"}},
		{"a delete-all's UUIDs in another order", `{"confirm":true}`,
			resp(200, js, `["8ef411fc-ae95-4ce7-a340-e8f8065612b4", "24b88204-95ac-4a84-bb44-4ce09a7eb727"]`),
			resp(200, js, `["22222222-2222-4333-8444-555555555555", "11111111-2222-4333-8444-555555555555"]`), nil},
		{"a delete-all that named fewer", "",
			resp(200, js, `["8ef411fc-ae95-4ce7-a340-e8f8065612b4", "24b88204-95ac-4a84-bb44-4ce09a7eb727"]`),
			resp(200, js, `["11111111-2222-4333-8444-555555555555"]`), []string{"the list"}},
		{"an empty list for a full one", "", resp(200, js, `[{"a": 1}]`), resp(200, js, `[]`), []string{"a list of 0, the real server's of 1"}},
		{"a 403 whose error lists identifiers, in any order", "",
			resp(403, js, `{"error": {"deleted": ["24b88204-95ac-4a84-bb44-4ce09a7eb727"], "unable": []}, "status": 403}`),
			resp(403, js, `{"error": {"unable": [], "deleted": ["22222222-2222-4333-8444-555555555555"]}, "status": 403}`), nil},
		{"a field the request sent, answered otherwise", `{"netblock": "10.0.0.0/24", "provide_dhcp": false}`,
			resp(200, js, `{"netblock": "10.0.0.0/24", "provide_dhcp": true, "vxlan_id": 7}`),
			resp(200, js, `{"netblock": "10.0.0.0/24", "provide_dhcp": false, "vxlan_id": 9}`), []string{"$.provide_dhcp: false (the request sent false), the real server's true"}},
		{"keys missing and extra", "",
			resp(200, js, `{"uuid": "u", "state": "created", "version": 3}`), resp(200, js, `{"uuid": "u", "created_at": 1.5}`),
			[]string{"$.state: missing", "$.version: missing", "$.created_at: not sent by the real server"}},
		{"a null field matches any type", "", resp(200, js, `{"node": null}`), resp(200, js, `{"node": "node1"}`), nil},
		{"an empty map matches any map below the top", "", resp(200, js, `{"refs": {"disk": [{"uuid": "u"}]}, "metadata": {}}`), resp(200, js, `{"refs": {}, "metadata": {"k": "v"}}`), nil},
		{"but an empty object at the top is not any object", "", resp(200, js, `{}`), resp(200, js, `{"k": 1}`), []string{"$.k: not sent by the real server"}},
		{"a lone value", "", resp(200, js, "300000\n"), resp(200, js, "299999"), []string{"299999, the real server's 300000"}},
		{"bodies not JSON: only emptiness", "", resp(200, "applicaton/octet-stream", ""), resp(200, "applicaton/octet-stream", "boot log"), []string{"body of 8 bytes, the real server's 0"}},
		{"Retry-After", "", func() *Response {
			r := resp(507, js, `{"error": "full", "status": 507}`)
			r.Header.Set("Retry-After", "15")
			return r
		}(), resp(507, js, `{"error": "full", "status": 507}`), []string{`Retry-After "", the real server's "15"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compare(ids, []byte(tc.req), tc.real, tc.sim)
			if len(got) != len(tc.want) {
				t.Fatalf("differences %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("difference %q does not say %q", got[i], w)
				}
			}
		})
	}
}
