package cluster

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/httpstub"
)

// testConfig is a small cluster whose timers never fire during a
// real-socket test: the lifecycle is tested on synctest's virtual clock.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	// The tests written before the 2026 generation pin the 2024 server
	// (which keeps the simulator's earlier behaviour); gen2026 switches.
	cfg.Generation = Generation2024
	cfg.Nodes = 2
	cfg.NodeCPUs = 4
	cfg.NodeMemoryMiB = 8192
	cfg.NodeDiskGiB = 100
	cfg.CreateTime = time.Hour
	cfg.ErrorCleanup = time.Hour
	cfg.AddressHalo = time.Hour
	cfg.NetworkDeployTime = 0
	cfg.ArtifactFetchTime = 0
	// No overcommit, reservation or free-disk floor: capacities in these
	// tests are the node sizes. The contract tests restore the real
	// arithmetic with realScheduler.
	cfg.CPUOvercommit, cfg.RAMOvercommit, cfg.RAMReservationGiB, cfg.MinFreeDiskGiB = 1, 1, 0, 0
	return cfg
}

// realScheduler restores the 2024 scheduler's defaults.
func realScheduler(cfg *Config) {
	d := DefaultConfig()
	cfg.CPUOvercommit, cfg.RAMOvercommit, cfg.RAMReservationGiB, cfg.MinFreeDiskGiB = d.CPUOvercommit, d.RAMOvercommit, d.RAMReservationGiB, d.MinFreeDiskGiB
}

// apiClient is a plain net/http client written for these tests (not
// shakectl's client): it spells the wire format itself.
type apiClient struct {
	t       testing.TB
	base    string
	hc      *http.Client
	ns, key string
	token   string
}

type answer struct {
	status int
	header http.Header
	raw    []byte
}

// obj decodes the answer as a JSON object.
func (a answer) obj(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.raw, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %v: %s", a.status, err, a.raw)
	}
	return m
}

// str decodes the answer as a JSON string.
func (a answer) str(t testing.TB) string {
	t.Helper()
	var v string
	if err := json.Unmarshal(a.raw, &v); err != nil {
		t.Fatalf("answer %d is not a JSON string: %v: %s", a.status, err, a.raw)
	}
	return v
}

// list decodes the answer as a JSON list of objects.
func (a answer) list(t testing.TB) []map[string]any {
	t.Helper()
	var l []map[string]any
	if err := json.Unmarshal(a.raw, &l); err != nil {
		t.Fatalf("answer %d is not a JSON list: %v: %s", a.status, err, a.raw)
	}
	return l
}

// startSim serves a simulator on a loopback port for the test's lifetime.
func startSim(t *testing.T, mutate func(*Config)) (*Server, *apiClient) {
	t.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.CheckAccounting(); err != nil {
			t.Errorf("accounting at the end of the test: %v", err)
		}
		_ = srv.Close()
	})
	// A transport of its own, closed before the server, so that the
	// server's shutdown has no idle connections to wait out.
	tr := &http.Transport{MaxIdleConnsPerHost: 32}
	t.Cleanup(tr.CloseIdleConnections)
	c := &apiClient{t: t, base: srv.URL(), hc: &http.Client{Timeout: 30 * time.Second, Transport: tr}, ns: cfg.AuthNamespace, key: cfg.AuthKey}
	c.login()
	return srv, c
}

// bubbleSim builds a simulator without a listener and a client that talks
// to its Handler in memory.
func bubbleSim(t *testing.T, mutate func(*Config)) (*Server, *apiClient) {
	t.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.CheckAccounting(); err != nil {
			t.Errorf("accounting at the end of the test: %v", err)
		}
		_ = srv.Close()
	})
	c := &apiClient{
		t:    t,
		ns:   cfg.AuthNamespace,
		key:  cfg.AuthKey,
		base: "http://sim.invalid",
		hc: &http.Client{
			Transport:     httpstub.HandlerTransport{Handler: srv.Handler()},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	c.login()
	return srv, c
}

func (c *apiClient) login() {
	c.t.Helper()
	a := c.do("POST", "/auth", map[string]any{"namespace": c.ns, "key": c.key})
	if a.status != http.StatusOK {
		c.t.Fatalf("login: %d %s", a.status, a.raw)
	}
	tok, _ := a.obj(c.t)["access_token"].(string)
	if tok == "" {
		c.t.Fatalf("login gave no access_token: %s", a.raw)
	}
	c.token = tok
}

// do sends a request the way shakectl's wire contract says a client does:
// JSON body, Accept: application/json, bearer token. body may be a string
// (sent verbatim) or anything json.Marshal takes. extra headers come as
// name, value pairs; an empty value removes the header.
func (c *apiClient) do(method, path string, body any, headers ...string) answer {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k := 0; k+1 < len(headers); k += 2 {
		if headers[k+1] == "" {
			req.Header.Del(headers[k])
		} else {
			req.Header.Set(headers[k], headers[k+1])
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, raw: raw}
}

// create posts an instance with one disk; extra fields are merged in.
func (c *apiClient) create(name string, cpus, memory, disk int, extra map[string]any) answer {
	c.t.Helper()
	body := map[string]any{
		"name":   name,
		"cpus":   cpus,
		"memory": memory,
		"disk":   []map[string]any{{"size": disk, "base": "debian:12"}},
	}
	for k, v := range extra {
		body[k] = v
	}
	return c.do("POST", "/instances", body)
}

func (c *apiClient) mustCreate(name string, cpus, memory, disk int, extra map[string]any) map[string]any {
	c.t.Helper()
	a := c.create(name, cpus, memory, disk, extra)
	if a.status != http.StatusOK {
		c.t.Fatalf("create %s: %d %s", name, a.status, a.raw)
	}
	return a.obj(c.t)
}

func (c *apiClient) mustNetwork(name, netblock string) map[string]any {
	c.t.Helper()
	a := c.do("POST", "/networks", map[string]any{"name": name, "netblock": netblock})
	if a.status != http.StatusOK {
		c.t.Fatalf("create network %s: %d %s", name, a.status, a.raw)
	}
	return a.obj(c.t)
}

// wantError checks an error answer's status and body: {"error", "status"}
// plus exactly the extra keys given.
func wantError(t testing.TB, a answer, status int, msgPart string, extraKeys ...string) map[string]any {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.raw)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	m := a.obj(t)
	if got, _ := m["status"].(float64); int(got) != status {
		t.Errorf("body status %v, want %d", m["status"], status)
	}
	msg, _ := m["error"].(string)
	if msg == "" || !strings.Contains(msg, msgPart) {
		t.Errorf("error %q does not mention %q", msg, msgPart)
	}
	want := map[string]bool{"error": true, "status": true}
	for _, k := range extraKeys {
		want[k] = true
	}
	for k := range m {
		if !want[k] {
			t.Errorf("unexpected field %q in %s", k, a.raw)
		}
	}
	for k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("missing field %q in %s", k, a.raw)
		}
	}
	return m
}

// gen2026 makes a test's simulator speak the 2026 server.
func gen2026(cfg *Config) { cfg.Generation = Generation2026 }

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
