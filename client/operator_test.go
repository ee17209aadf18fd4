package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// The operator methods against an httptest server that replays the real
// answers of testdata/sf2024 and testdata/sf2026 (SOURCES.md at the top
// names each one's repository, path and commit).

// generation serves one server generation's root page (its capability
// list) on the sfStubs.
func generation(t *testing.T, s *sfStubs, gen string) {
	t.Helper()
	if gen == "" {
		return
	}
	page := golden(t, "sf"+gen+"/root.html")
	s.handle("GET /", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})
}

// jsonEqual compares a recorded body with the JSON it should be.
func jsonEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if want == "" {
		if got != "" {
			t.Errorf("%s: body %s, want none", what, got)
		}
		return
	}
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want %q", what, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: body\n got %s\nwant %s", what, got, want)
	}
}

// apiCalls are the requests that are not the public root page.
func apiCalls(s *sfStubs) []*recorded {
	var out []*recorded
	for _, r := range s.recorded() {
		if r.path != "/" {
			out = append(out, r)
		}
	}
	return out
}

func TestCapabilitiesOfBothGenerations(t *testing.T) {
	for _, tc := range []struct {
		gen       string
		has, lack []string
	}{
		{"2024", []string{"list-addresses", "provide-dns", "extra-dns-entries", "cluster-resources", "events-by-type", "interface-metadata"},
			[]string{"network-delete-async", "generated-key-secrets", "cluster-operation-chain", "networks"[:7]}},
		{"2026", []string{"network-delete-async", "generated-key-secrets", "cluster-operation-chain", "cluster-operations-by-target", "provide-dns", "cluster-resources"},
			[]string{"network-delete"}},
	} {
		t.Run(tc.gen, func(t *testing.T) {
			s := newSF(t)
			generation(t, s, tc.gen)
			c := sfClient(t, s, nil)
			for range 2 {
				caps, err := c.Capabilities(t.Context())
				if err != nil || !caps.Known {
					t.Fatalf("caps = %v, %v", caps.Names(), err)
				}
				for _, n := range tc.has {
					if !caps.Has(n) {
						t.Errorf("does not have %q; has %v", n, caps.Names())
					}
				}
				for _, n := range tc.lack {
					if caps.Has(n) {
						t.Errorf("has %q", n)
					}
				}
			}
			// Read once per client, without a token (the page is public).
			rs := s.recorded()
			if len(rs) != 1 || rs[0].path != "/" || rs[0].header.Get("Authorization") != "" || s.loginCount() != 0 {
				t.Errorf("requests %d, logins %d, first %+v", len(rs), s.loginCount(), rs[0])
			}
		})
	}
}

func TestCapabilitiesUnknownWhenTheRootIsNotTheAPI(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(404, golden(t, "flask_404.html"), "Content-Type", "text/html"))
	c := sfClient(t, s, nil)
	caps, err := c.Capabilities(t.Context())
	if err != nil || caps.Known || caps.Has("network-delete-async") {
		t.Fatalf("caps = %+v, %v", caps, err)
	}
	// Unknown capabilities never refuse: the route's own answer decides.
	s.handle("GET /clusteroperations/op-1/chain", reply(200, golden(t, "sf2026/clusteroperation_chain.json")))
	chain, err := c.ClusterOperationChain(t.Context(), "op-1")
	if err != nil || len(chain) != 2 || chain[1].Tasks[0] != "network_deploy" {
		t.Fatalf("chain = %+v, %v", chain, err)
	}
}

func TestParseCapabilitiesReadsWordsNotSubstrings(t *testing.T) {
	caps := client.ParseCapabilities([]byte(`<p>Machine searchable API capabilities:</p><ul><li>networks: network-delete-asynchronous, provide-dns</ul><p>network-delete-async</p>`))
	if !caps.Known || caps.Has("network-delete-async") || !caps.Has("provide-dns") {
		t.Errorf("caps = %v", caps.Names())
	}
	if c := client.ParseCapabilities([]byte("<html>network-delete-async</html>")); c.Known || c.Has("network-delete-async") {
		t.Errorf("a page without the capability list lists %v", c.Names())
	}
}

// call is one method call and the request it must send.
type call struct {
	name       string
	gen        string // root page served, "" for none
	routes     map[string]http.HandlerFunc
	do         func(c *client.Client) (any, error)
	method     string
	path       string
	body       string // JSON, "" for none
	check      func(t *testing.T, v any)
	wantErr    func(t *testing.T, err error)
	noRequests bool
}

func runCalls(t *testing.T, calls []call) {
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			s := newSF(t)
			generation(t, s, tc.gen)
			for k, h := range tc.routes {
				s.handle(k, h)
			}
			c := sfClient(t, s, nil)
			v, err := tc.do(c)
			if tc.wantErr != nil {
				tc.wantErr(t, err)
			} else if err != nil {
				t.Fatalf("error: %v", err)
			}
			rs := apiCalls(s)
			if tc.noRequests {
				if len(rs) != 0 {
					t.Errorf("sent %d requests, want none (first %s %s)", len(rs), rs[0].method, rs[0].path)
				}
				return
			}
			if len(rs) == 0 {
				t.Fatal("no request sent")
			}
			r := rs[0]
			if r.method != tc.method || r.path != tc.path {
				t.Errorf("sent %s %s, want %s %s", r.method, r.path, tc.method, tc.path)
			}
			jsonEqual(t, tc.name, r.body, tc.body)
			if tc.check != nil && err == nil {
				tc.check(t, v)
			}
		})
	}
}

func only(key string, h http.HandlerFunc) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{key: h}
}

func wantUsage(field string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var u *client.UsageError
		if !errors.As(err, &u) || u.Field != field {
			t.Fatalf("err = %v, want a usage error about %s", err, field)
		}
	}
}

func wantNotSupported(capability string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ns *client.NotSupportedError
		if !errors.As(err, &ns) || ns.Capability != capability {
			t.Fatalf("err = %v, want not supported (%s)", err, capability)
		}
	}
}

const namespaceCI = `{"name": "ci", "state": "created", "metadata": {"owner": "ops"}, "version": 1, "keys": ["deploy"], "trust": {"full": ["system"]}}`

func TestNamespaceMethods(t *testing.T) {
	ns := func(t *testing.T, v any) {
		n := v.(*client.Namespace)
		if n.Name != "ci" || n.Keys[0] != "deploy" || n.Trust.Full[0] != "system" || !strings.Contains(string(n.Raw), `"owner"`) {
			t.Errorf("namespace = %+v", n)
		}
	}
	runCalls(t, []call{
		{name: "show", routes: only("GET /auth/namespaces/ci", reply(200, namespaceCI)),
			do:     func(c *client.Client) (any, error) { return c.GetNamespace(t.Context(), "ci") },
			method: "GET", path: "/auth/namespaces/ci", check: ns},
		{name: "create", routes: only("POST /auth/namespaces", reply(200, namespaceCI)),
			do:     func(c *client.Client) (any, error) { return c.CreateNamespace(t.Context(), "ci") },
			method: "POST", path: "/auth/namespaces", body: `{"namespace": "ci"}`, check: ns},
		{name: "delete", routes: only("DELETE /auth/namespaces/ci", reply(200, "null")),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteNamespace(t.Context(), "ci") },
			method: "DELETE", path: "/auth/namespaces/ci"},
		{name: "delete refused while it holds instances (2024)",
			routes: only("DELETE /auth/namespaces/ci", reply(400, `{"error": "you cannot delete a namespace with instances", "status": 400}`)),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteNamespace(t.Context(), "ci") },
			method: "DELETE", path: "/auth/namespaces/ci",
			wantErr: func(t *testing.T, err error) {
				var apiErr *client.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "you cannot delete a namespace with instances" {
					t.Fatalf("err = %v", err)
				}
			}},
		{name: "keys", routes: only("GET /auth/namespaces/ci/keys", reply(200, `["deploy", "ci-runner"]`)),
			do:     func(c *client.Client) (any, error) { return c.ListNamespaceKeys(t.Context(), "ci") },
			method: "GET", path: "/auth/namespaces/ci/keys",
			check: func(t *testing.T, v any) {
				if k := v.([]string); len(k) != 2 || k[1] != "ci-runner" {
					t.Errorf("keys = %v", k)
				}
			}},
		{name: "delete key", routes: only("DELETE /auth/namespaces/ci/keys/deploy", reply(200, "null")),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteNamespaceKey(t.Context(), "ci", "deploy") },
			method: "DELETE", path: "/auth/namespaces/ci/keys/deploy"},
		{name: "get metadata", routes: only("GET /auth/namespaces/ci/metadata", reply(200, `{"owner": "ops"}`)),
			do:     func(c *client.Client) (any, error) { return c.GetNamespaceMetadata(t.Context(), "ci") },
			method: "GET", path: "/auth/namespaces/ci/metadata",
			check: func(t *testing.T, v any) {
				if m := v.(map[string]any); m["owner"] != "ops" {
					t.Errorf("metadata = %v", m)
				}
			}},
		{name: "set metadata", routes: only("PUT /auth/namespaces/ci/metadata/owner", reply(200, "null")),
			do: func(c *client.Client) (any, error) {
				return nil, c.SetNamespaceMetadata(t.Context(), "ci", "owner", "ops")
			},
			method: "PUT", path: "/auth/namespaces/ci/metadata/owner", body: `{"value": "ops"}`},
		{name: "delete metadata", routes: only("DELETE /auth/namespaces/ci/metadata/owner", reply(200, "null")),
			do:     func(c *client.Client) (any, error) { return nil, c.DeleteNamespaceMetadata(t.Context(), "ci", "owner") },
			method: "DELETE", path: "/auth/namespaces/ci/metadata/owner"},
		{name: "add trust", routes: only("POST /auth/namespaces/ci/trust", reply(200, namespaceCI)),
			do:     func(c *client.Client) (any, error) { return c.AddNamespaceTrust(t.Context(), "ci", "system") },
			method: "POST", path: "/auth/namespaces/ci/trust", body: `{"external_namespace": "system"}`, check: ns},
		{name: "remove trust", routes: only("DELETE /auth/namespaces/ci/trust/system", reply(200, namespaceCI)),
			do:     func(c *client.Client) (any, error) { return c.RemoveNamespaceTrust(t.Context(), "ci", "system") },
			method: "DELETE", path: "/auth/namespaces/ci/trust/system", check: ns},
		{name: "a name with a slash stays one path segment", routes: only("GET /auth/namespaces/a/b", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.EscapedPath() != "/auth/namespaces/a%2Fb" {
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"error": "path %s", "status": 400}`, r.URL.EscapedPath())
				return
			}
			fmt.Fprint(w, namespaceCI)
		}),
			do:     func(c *client.Client) (any, error) { return c.GetNamespace(t.Context(), "a/b") },
			method: "GET", path: "/auth/namespaces/a/b"},
		{name: "no namespace", do: func(c *client.Client) (any, error) { return c.GetNamespace(t.Context(), "") },
			wantErr: wantUsage("namespace"), noRequests: true},
	})
}

func TestCleanNamespaceDeletesInstancesThenNetworks(t *testing.T) {
	s := newSF(t)
	s.handle("DELETE /instances", reply(200, `["c0d52a77-0f8a-4f19-bec7-0c05efb03cb4"]`))
	s.handle("DELETE /networks", reply(200, `["1bed1aa5-10f0-45cc-ae58-4a94761bef59"]`))
	c := sfClient(t, s, nil)
	got, err := c.CleanNamespace(t.Context(), "ci")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 1 || got.Networks.Deleted[0] != "1bed1aa5-10f0-45cc-ae58-4a94761bef59" {
		t.Errorf("cleaned = %+v %+v", got, got.Networks)
	}
	rs := apiCalls(s)
	if len(rs) != 2 || rs[0].path != "/instances" || rs[1].path != "/networks" {
		t.Fatalf("requests = %v", rs)
	}
	jsonEqual(t, "instances", rs[0].body, `{"confirm": true, "namespace": "ci"}`)
	jsonEqual(t, "networks", rs[1].body, `{"confirm": true, "namespace": "ci", "clean_wait": true}`)
}

const secretKey = "hunter2-but-longer-SECRET"

func TestKeysFollowTheGenerationAndNeverShow(t *testing.T) {
	expiry := time.Unix(1900000000, 500_000_000)
	runCalls(t, []call{
		{name: "add (2024)", gen: "2024", routes: only("POST /auth/namespaces/ci/keys", reply(200, `"ci-runner"`)),
			do: func(c *client.Client) (any, error) {
				return c.AddNamespaceKey(t.Context(), "ci", "ci-runner", client.NewSecret(secretKey), time.Time{})
			},
			method: "POST", path: "/auth/namespaces/ci/keys", body: `{"key_name": "ci-runner", "key": "` + secretKey + `"}`,
			check: func(t *testing.T, v any) {
				if k := v.(*client.NamespaceKey); k.Name != "ci-runner" || !k.Generated.Empty() {
					t.Errorf("key = %+v", k)
				}
			}},
		{name: "add with expiry (2026)", gen: "2026", routes: only("POST /auth/namespaces/ci/keys", reply(200, `"ci-runner"`)),
			do: func(c *client.Client) (any, error) {
				return c.AddNamespaceKey(t.Context(), "ci", "ci-runner", client.NewSecret(secretKey), expiry)
			},
			method: "POST", path: "/auth/namespaces/ci/keys", body: `{"key_name": "ci-runner", "key": "` + secretKey + `", "expiry": 1900000000.5}`},
		{name: "add with expiry refused before sending (2024)", gen: "2024",
			do: func(c *client.Client) (any, error) {
				return c.AddNamespaceKey(t.Context(), "ci", "ci-runner", client.NewSecret(secretKey), expiry)
			},
			wantErr: wantNotSupported(client.CapGeneratedKeySecrets), noRequests: true},
		{name: "add with a generated secret (2026)", gen: "2026", routes: only("POST /auth/namespaces/ci/keys", reply(200, golden(t, "sf2026/key_generated.json"))),
			do: func(c *client.Client) (any, error) {
				return c.AddNamespaceKey(t.Context(), "ci", "newkey", client.Secret{}, time.Time{})
			},
			method: "POST", path: "/auth/namespaces/ci/keys", body: `{"key_name": "newkey"}`,
			check: func(t *testing.T, v any) {
				k := v.(*client.NamespaceKey)
				if k.Name != "newkey" || k.Generated.Reveal() != "sfk_..." {
					t.Errorf("key = %+v", k)
				}
				out, _ := json.Marshal(k)
				if s := fmt.Sprintf("%v %+v %#v %s", k, k, k, out); strings.Contains(s, "sfk_") {
					t.Errorf("the generated secret shows: %s", s)
				}
			}},
		{name: "rotate (2026): PUT on the key", gen: "2026", routes: only("PUT /auth/namespaces/ci/keys/deploy", reply(200, `"deploy"`)),
			do: func(c *client.Client) (any, error) {
				return c.RotateNamespaceKey(t.Context(), "ci", "deploy", client.NewSecret(secretKey), time.Time{})
			},
			method: "PUT", path: "/auth/namespaces/ci/keys/deploy", body: `{"key": "` + secretKey + `"}`},
		{name: "rotate (2024): POST replaces the key", gen: "2024", routes: only("POST /auth/namespaces/ci/keys", reply(200, `"deploy"`)),
			do: func(c *client.Client) (any, error) {
				return c.RotateNamespaceKey(t.Context(), "ci", "deploy", client.NewSecret(secretKey), time.Time{})
			},
			method: "POST", path: "/auth/namespaces/ci/keys", body: `{"key_name": "deploy", "key": "` + secretKey + `"}`},
		{name: "rotate without a secret", gen: "2026",
			do: func(c *client.Client) (any, error) {
				return c.RotateNamespaceKey(t.Context(), "ci", "deploy", client.Secret{}, time.Time{})
			},
			wantErr: wantUsage("key"), noRequests: true},
	})
}

func TestAKeyBeingAddedIsNeitherLoggedNorEchoed(t *testing.T) {
	s := newSF(t)
	generation(t, s, "2024")
	// A hostile or broken server echoes the key in its error.
	s.handle("POST /auth/namespaces/ci/keys", reply(403, `{"error": "illegal key `+secretKey+`", "status": 403}`))
	var debug syncbuf.Buffer
	c := sfClient(t, s, &debug)
	_, err := c.AddNamespaceKey(t.Context(), "ci", "_service_key", client.NewSecret(secretKey), time.Time{})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 403 {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), secretKey) || strings.Contains(string(apiErr.Body), secretKey) {
		t.Errorf("the key is in the error: %v / %s", err, apiErr.Body)
	}
	if d := debug.String(); strings.Contains(d, secretKey) || !strings.Contains(d, "/auth/namespaces/ci/keys") {
		t.Errorf("debug output shows the key or not the request:\n%s", d)
	}
}

func TestClaims(t *testing.T) {
	claim := golden(t, "sf2026/claim.json")
	const claimPath = "/auth/namespaces/ci/claims/0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f"
	checkClaim := func(t *testing.T, v any) {
		c := v.(*client.Claim)
		if c.UUID != "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f" || c.LimitCPUs != 40 || c.LimitMemoryMB != 81920 || c.LimitDiskGB != 2000 ||
			c.UsedCPUs != 12 || c.CoverageState != "active" || !c.Expires().Equal(time.Unix(1755300000, 0)) {
			t.Errorf("claim = %+v", c)
		}
	}
	eight, half := 8, 1800
	runCalls(t, []call{
		{name: "list", gen: "2026", routes: only("GET /auth/namespaces/ci/claims", reply(200, "["+claim+"]")),
			do:     func(c *client.Client) (any, error) { return c.ListNamespaceClaims(t.Context(), "ci") },
			method: "GET", path: "/auth/namespaces/ci/claims",
			check: func(t *testing.T, v any) {
				l := v.([]client.Claim)
				if len(l) != 1 {
					t.Fatalf("claims = %+v", l)
				}
				checkClaim(t, &l[0])
			}},
		{name: "show", routes: only("GET "+claimPath, reply(200, claim)),
			do: func(c *client.Client) (any, error) {
				return c.GetNamespaceClaim(t.Context(), "ci", "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f")
			},
			method: "GET", path: claimPath, check: checkClaim},
		{name: "create", routes: only("POST /auth/namespaces/ci/claims", reply(200, claim)),
			do: func(c *client.Client) (any, error) {
				return c.CreateNamespaceClaim(t.Context(), "ci", client.ClaimRequest{LimitCPUs: 40, LimitMemoryMB: 81920, LimitDiskGB: 2000,
					ExpiresInSeconds: client.ExpiresIn(24 * time.Hour)})
			},
			method: "POST", path: "/auth/namespaces/ci/claims",
			body:  `{"limit_cpus": 40, "limit_memory_mb": 81920, "limit_disk_gb": 2000, "expires_in_seconds": 86400}`,
			check: checkClaim},
		{name: "update sends only what changes", routes: only("PUT "+claimPath, reply(200, claim)),
			do: func(c *client.Client) (any, error) {
				return c.UpdateNamespaceClaim(t.Context(), "ci", "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f", client.ClaimUpdate{ExpiresInSeconds: &half})
			},
			method: "PUT", path: claimPath, body: `{"expires_in_seconds": 1800}`},
		{name: "update a limit", routes: only("PUT "+claimPath, reply(200, claim)),
			do: func(c *client.Client) (any, error) {
				return c.UpdateNamespaceClaim(t.Context(), "ci", "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f", client.ClaimUpdate{LimitCPUs: &eight})
			},
			method: "PUT", path: claimPath, body: `{"limit_cpus": 8}`},
		{name: "delete answers the claim as it was", routes: only("DELETE "+claimPath, reply(200, claim)),
			do: func(c *client.Client) (any, error) {
				return c.DeleteNamespaceClaim(t.Context(), "ci", "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f")
			},
			method: "DELETE", path: claimPath, check: checkClaim},
		{name: "a negative limit is refused before sending",
			do: func(c *client.Client) (any, error) {
				return c.CreateNamespaceClaim(t.Context(), "ci", client.ClaimRequest{LimitCPUs: -1, ExpiresInSeconds: 60})
			},
			wantErr: wantUsage("limit_cpus"), noRequests: true},
		{name: "a zero duration is refused before sending",
			do: func(c *client.Client) (any, error) {
				return c.CreateNamespaceClaim(t.Context(), "ci", client.ClaimRequest{LimitCPUs: 1})
			},
			wantErr: wantUsage("expires_in_seconds"), noRequests: true},
	})
}

// golden refusal rows of both generations (testdata/sf*/refusals.json).
type refusalRow struct {
	Name       string            `json:"name"`
	Source     string            `json:"source"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Status     int               `json:"status"`
	Header     map[string]string `json:"header"`
	Body       json.RawMessage   `json:"body"`
	Capacity   bool              `json:"capacity"`
	Stage      string            `json:"stage"`
	Transient  bool              `json:"transient"`
	Malformed  bool              `json:"malformed_transient"`
	Claim      string            `json:"claim"`
	TextStage  string            `json:"text_stage"`
	Generation string            `json:"-"`
}

func refusalRows(t *testing.T) []refusalRow {
	var all []refusalRow
	for _, gen := range []string{"2024", "2026"} {
		var rows []refusalRow
		if err := json.Unmarshal([]byte(golden(t, "sf"+gen+"/refusals.json")), &rows); err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].Generation = gen
		}
		all = append(all, rows...)
	}
	return all
}

func TestRefusalsOfBothGenerationsAreClassifiedByTheirFields(t *testing.T) {
	for _, row := range refusalRows(t) {
		t.Run(row.Generation+" "+row.Name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range row.Header {
				h.Set(k, v)
			}
			e := client.NewAPIError(row.Method, "http://sf"+row.Path, row.Status, h, row.Body, errNow)
			cr := e.Capacity()
			if (cr != nil) != row.Capacity {
				t.Fatalf("capacity view = %+v, want present %v", cr, row.Capacity)
			}
			if cr != nil && (cr.Stage != row.Stage || cr.Transient != row.Transient || cr.MalformedTransient != row.Malformed || cr.TextStage != row.TextStage) {
				t.Errorf("refusal = %+v, want stage %q transient %v malformed %v text stage %q", cr, row.Stage, row.Transient, row.Malformed, row.TextStage)
			}
			var body struct {
				Error any `json:"error"`
			}
			_ = json.Unmarshal(row.Body, &body)
			if s, ok := body.Error.(string); ok && e.Message != s {
				t.Errorf("message = %q, want the server's %q", e.Message, s)
			}
		})
	}
}

func TestClaimRefusalsAreTyped(t *testing.T) {
	for _, row := range refusalRows(t) {
		if row.Claim == "" {
			continue
		}
		t.Run(row.Name, func(t *testing.T) {
			s := newSF(t)
			body := string(row.Body)
			s.handle(row.Method+" "+row.Path, reply(row.Status, body))
			c := sfClient(t, s, nil)
			var err error
			if row.Method == http.MethodPut {
				one := 1
				_, err = c.UpdateNamespaceClaim(t.Context(), "ci", "0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f", client.ClaimUpdate{LimitCPUs: &one})
			} else {
				_, err = c.CreateNamespaceClaim(t.Context(), "ci", client.ClaimRequest{LimitCPUs: 64, LimitMemoryMB: 1, LimitDiskGB: 1, ExpiresInSeconds: 60})
			}
			var cr *client.ClaimRefusal
			if !errors.As(err, &cr) || string(cr.Kind) != row.Claim {
				t.Fatalf("err = %v, want a %s claim refusal", err, row.Claim)
			}
			if cr.Transient() != (row.Status == 503) {
				t.Errorf("transient = %v", cr.Transient())
			}
			// The claim 507 carries no transient marker: a permanent
			// capacity refusal, as for instances.
			var capacity *client.CapacityRefusal
			if errors.As(err, &capacity) && capacity.Transient {
				t.Errorf("claim 507 read as transient")
			}
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != row.Status {
				t.Errorf("the APIError is not reachable: %v", err)
			}
		})
	}
}
