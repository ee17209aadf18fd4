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
	tests := []struct {
		name, body, msg string
	}{
		{"empty body", ``, "empty"},
		{"not JSON", `name=web1`, "malformed JSON"},
		{"truncated", `{"name": "web1", "cpus": 1`, "malformed JSON"},
		{"a list", `[1, 2]`, "must be a JSON object"},
		{"trailing data", validCreate + `{}`, "after the JSON object"},
		{"unknown field", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "colour": "red"}`, `unknown field "colour"`},
		{"unknown disk field", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10, "speed": 9}]}`, `unknown field "speed"`},
		{"cpus as a string", `{"name": "web1", "cpus": "2", "memory": 1024, "disk": [{"size": 10}]}`, `"cpus" must be an integer, not string`},
		{"cpus fractional", `{"name": "web1", "cpus": 1.5, "memory": 1024, "disk": [{"size": 10}]}`, `"cpus" must be an integer`},
		{"cpus huge", `{"name": "web1", "cpus": 1e400, "memory": 1024, "disk": [{"size": 10}]}`, `cpus`},
		{"memory as bool", `{"name": "web1", "cpus": 1, "memory": true, "disk": [{"size": 10}]}`, `"memory" must be an integer, not bool`},
		{"disk not a list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": {"size": 10}}`, `"disk" must be a list`},
		{"missing name", `{"cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "name is required"},
		{"name with a dot", `{"name": "web1.example", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "DNS host name"},
		{"name with underscore", `{"name": "web_1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "DNS host name"},
		{"name too long", `{"name": "` + strings.Repeat("a", 64) + `", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "DNS host name"},
		{"name leading hyphen", `{"name": "-web", "cpus": 1, "memory": 1024, "disk": [{"size": 10}]}`, "DNS host name"},
		{"missing cpus", `{"name": "web1", "memory": 1024, "disk": [{"size": 10}]}`, "cpus is required"},
		{"zero cpus", `{"name": "web1", "cpus": 0, "memory": 1024, "disk": [{"size": 10}]}`, "at least 1"},
		{"negative cpus", `{"name": "web1", "cpus": -2, "memory": 1024, "disk": [{"size": 10}]}`, "at least 1"},
		{"null cpus", `{"name": "web1", "cpus": null, "memory": 1024, "disk": [{"size": 10}]}`, "cpus is required"},
		{"negative memory", `{"name": "web1", "cpus": 1, "memory": -1, "disk": [{"size": 10}]}`, "at least 1 MiB"},
		{"missing disk", `{"name": "web1", "cpus": 1, "memory": 1024}`, "at least one disk"},
		{"empty disk list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": []}`, "at least one disk"},
		{"disk without size", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"base": "debian:12"}]}`, "size is required"},
		{"negative disk", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": -10}]}`, "at least 1 GiB"},
		{"absurd disk", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 9223372036854775807}]}`, "plausible"},
		{"ide disk", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10, "bus": "ide"}]}`, "IDE"},
		{"empty base", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10, "base": ""}]}`, "omit the field"},
		{"network without uuid", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "network": [{"address": "10.0.0.5"}]}`, "missing network_uuid"},
		{"bad address", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "network": [{"network_uuid": "n", "address": "10.0.0.500"}]}`, "not an IPv4 address"},
		{"empty placed_on", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "placed_on": ""}`, "placed_on is empty"},
		{"user_data not base64", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "user_data": "#cloud-config!"}`, "base64"},
		{"ssh key junk", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "ssh_key": "hunter2"}`, "OpenSSH public key"},
		{"metadata not an object", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": ["a"]}`, `"metadata" must be an object`},
		{"tags not strings", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"tags": [1]}}`, "tags must be a list of strings"},
		{"affinity not an object", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": "ssd"}}`, "affinity must be an object"},
		{"affinity tags not a list", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"require_with_tag": "ssd"}}}`, "list of tags"},
		{"soft affinity not a number", `{"name": "web1", "cpus": 1, "memory": 1024, "disk": [{"size": 10}], "metadata": {"affinity": {"web": "lots"}}}`, "soft affinity weight"},
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

func TestBadBodiesElsewhere(t *testing.T) {
	_, c := startSim(t, nil)
	wantError(t, c.do("GET", "/instances", `{"all": "yes"}`), 400, `"all" must be a boolean`)
	wantError(t, c.do("GET", "/instances", `{"everything": true}`), 400, "unknown field")
	wantError(t, c.do("POST", "/auth", `{"namespace": "system", "key": "demo"`), 400, "malformed JSON")
	wantError(t, c.do("DELETE", "/instances/x", `nope`), 400, "malformed JSON")
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
func FuzzCreateBody(f *testing.F) {
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
	call(f, "POST", "/networks", `{"name": "tiny", "netblock": "10.7.0.0/30"}`, login.AccessToken)

	allowed := map[int]bool{200: true, 400: true, 404: true, 406: true, 409: true, 413: true, 507: true}
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
