package cluster

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const validCreate = `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`

// TestBadCreateBodies: everything malformed is a 400 with a clear error and
// leaves no record and no charge behind.
func TestBadCreateBodies(t *testing.T) {
	srv, c := startSim(t, nil)
	// The texts are the 2024 server's own (InstancesEndpoint.post and
	// generic_wrapper, da448b1a), Python's TypeError wording included.
	tests := []struct {
		name, body, msg string
	}{
		{"empty body", ``, "argument of type 'NoneType' is not iterable"},
		{"not JSON", `name=web1`, "argument of type 'NoneType' is not iterable"},
		{"a list", `[1, 2]`, "argument after ** must be a mapping, not list"},
		{"unknown field", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "colour": "red"}`, "InstancesEndpoint.post() got an unexpected keyword argument 'colour'"},
		{"disk not a list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": {"size": 10}}`, "disk specification should contain JSON objects"},
		{"missing name", `{"cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "argument of type 'NoneType' is not iterable"},
		{"name with a dot", `{"name": "web1.example", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "is not useable as a DNS and Linux host name"},
		{"name with underscore", `{"name": "web_1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "is not useable as a DNS and Linux host name"},
		{"name too long", `{"name": "` + strings.Repeat("a", 64) + `", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "is not useable as a DNS"},
		{"name leading hyphen", `{"name": "-web", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "is not useable as a DNS"},
		{"missing disk", `{"name": "web1", "cpus": 1, "memory": 1024}`, "at least one disk"},
		{"empty disk list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": []}`, "at least one disk"},
		{"ide disk", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10, "bus": "ide"}]}`, "IDE disks are no longer supported"},
		{"network without uuid", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "network": [{"address": "10.0.0.5"}]}`, "network specification is missing network_uuid"},
		{"metadata not an object", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": ["a"]}`, "metadata must be a dictionary"},
		{"affinity not an object", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": "ssd"}}`, `value for "affinity" key should be a valid JSON dictionary`},
		{"affinity tags not a list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"require_with_tag": "ssd"}}}`, "list of tags"},
		{"soft affinity not a number", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"web": "lots"}}}`, "affinity dictionary values should be integers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, c.do("POST", "/instances", tc.body), 400, tc.msg)
		})
	}
	if l := c.do("GET", "/instances", map[string]any{"all": true}).list(t); len(l) != 0 {
		t.Errorf("bad requests left %d records", len(l))
	}
	for _, u := range srv.NodeUsage() {
		if u.UsedCPUs != 0 || u.UsedMemoryMiB != 0 || u.UsedDiskGiB != 0 {
			t.Errorf("bad requests charged %s: %+v", u.Name, u)
		}
	}
}

// TestBadBodiesElsewhere: an unparsable body is taken as {} (get_json
// falls back), an unknown key is the handler's TypeError.
func TestBadBodiesElsewhere(t *testing.T) {
	_, c := startSim(t, nil)
	wantError(t, c.do("GET", "/instances", `{"everything": true}`), 400, "InstancesEndpoint.get() got an unexpected keyword argument 'everything'")
	wantError(t, c.do("POST", "/auth", `{"namespace": "system", "key": "demo"`), 400, "missing namespace in request")
	wantError(t, c.do("DELETE", "/instances/x", `nope`), 404, "instance not found")
}

// TestUncheckedSizesReachTheScheduler: cpus and memory are not checked by
// the API; the scheduler's comparisons raise TypeError (400) after the
// record was made, as on the 2024 server.
func TestUncheckedSizesReachTheScheduler(t *testing.T) {
	_, c := startSim(t, nil)
	wantError(t, c.do("POST", "/instances", `{"name": "a", "cpus": "2", "memory": 1024, "disk": [{"size": 10}]}`), 400, "'>' not supported between instances of 'str' and 'int'")
	wantError(t, c.do("POST", "/instances", `{"name": "a", "memory": 1024, "disk": [{"size": 10}]}`), 400, "'>' not supported between instances of 'NoneType' and 'int'")
	wantError(t, c.do("POST", "/instances", `{"name": "a", "cpus": 1, "memory": "x", "disk": [{"size": 10}]}`), 400, "unsupported operand type(s) for -: 'float' and 'str'")
	wantError(t, c.do("POST", "/instances", `{"name": "a", "cpus": -1, "memory": 1, "disk": [{"size": 10}]}`), 400, "outside what the simulator can count")
	wantError(t, c.do("POST", "/instances", `{"name": "a", "cpus": 1, "memory": 1, "disk": [{"size": "ten"}]}`), 500, "invalid literal for int() with base 10: 'ten'")
}

func TestOversizedBody(t *testing.T) {
	srv, c := startSim(t, nil)
	huge := `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"blob": "` + strings.Repeat("x", maxBodyBytes) + `"}}`
	wantError(t, c.do("POST", "/instances", huge), 413, "limit")
	if err := srv.CheckAccounting(); err != nil {
		t.Error(err)
	}
	// The server is still fine afterwards.
	c.mustCreate("after", 1, 1024, 10, nil)
}

// FuzzCreateBody throws arbitrary bodies at POST /instances: the simulator
// must never panic, must answer with one of the statuses the contract
// allows and a well-formed error body, and must never corrupt its
// accounting.
func FuzzCreateBody(f *testing.F) { fuzzCreateBody(f, Generation2024) }

// FuzzCreateBody2026 is the same against the 2026 server's validation,
// with seeds for its binary affinity form, nulls and typed diskspecs.
func FuzzCreateBody2026(f *testing.F) {
	for _, seed := range []string{
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"prefer_with_tag": ["ssd"], "require_without_tag": ["db"]}}}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"ssd": 5, "require_with_tag": ["gpu"]}}}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"ssd": true}}}`,
		`{"name": "web1", "cpus": null, "memory": 1024, "disk": [{"size": 10, "colour": 1}], "uuid": "x"}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 0, "base": "none"}], "video": {"vdi": 7}}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "placed_on": "` + nodeUUID("node1") + `"}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzCreateBody(f, Generation2026)
}

func fuzzCreateBody(f *testing.F, gen string) {
	for _, seed := range []string{
		validCreate,
		`{"name": "web1", "cpus": 4, "memory": 8192, "disk": [{"size": 100}]}`,
		`{"name": "web1", "cpus": 5, "memory": 1024, "disk": [{"size": 10}]}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "placed_on": "control1"}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "placed_on": "node9"}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "network": [{"network_uuid": "tiny"}]}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "network": [{"network_uuid": "tiny", "address": "10.7.0.2"}]}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"require_with_tag": ["gpu"]}}}`,
		`{"name": "web1", "cpus": -1, "memory": 1e309, "disk": [{"size": 10}]}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 9223372036854775807}, {"size": 9223372036854775807}]}`,
		`{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"x": [[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]}}`,
		`{"name": "\u0000", "cpus": 1}`,
		`{"name": "web1", "name": "web2", "cpus": 1, "memory": 1, "disk": [{"size": 1}]}`,
		`null`, `[]`, `""`, `{`, `{"disk": null}`, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	srv, err := New(func() Config {
		c := testConfig()
		c.Generation = gen
		c.NonHypervisorNodes = 1
		c.NodeTags = map[string][]string{"node1": {"ssd"}}
		// Quick cleanups keep the record count bounded over millions of
		// inputs, and run the timers concurrently with the requests.
		c.ErrorCleanup = time.Millisecond
		c.TeardownLag = time.Millisecond
		c.CreateTime = time.Millisecond
		return c
	}())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Close() })
	h := srv.Handler()
	call := func(t testing.TB, method, path, body, token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Accept", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	var login struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(call(f, "POST", "/auth", `{"namespace": "system", "key": "demo"}`, "").Body.Bytes(), &login)
	call(f, "POST", "/networks", `{"name": "tiny", "netblock": "10.7.0.0/29"}`, login.AccessToken)

	allowed := map[int]bool{200: true, 400: true, 404: true, 406: true, 409: true, 413: true, 500: true, 507: true}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := call(t, "POST", "/instances", string(body), login.AccessToken)
		if !allowed[rec.Code] {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("answer is not a JSON object: %s", rec.Body)
		}
		if rec.Code != 200 {
			if s, _ := m["status"].(float64); int(s) != rec.Code || m["error"] == nil {
				t.Fatalf("error body %s does not match status %d", rec.Body, rec.Code)
			}
		}
		if err := srv.CheckAccounting(); err != nil {
			t.Fatalf("after %q: %v", body, err)
		}
		// Keep the cluster from filling up for good, so later inputs still
		// reach the scheduler.
		if rec.Code == 200 {
			call(t, "DELETE", "/instances/"+m["uuid"].(string), "", login.AccessToken)
		}
	})
}
