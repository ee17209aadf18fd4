package cluster

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const rehearsal = `
# two transient refusals, a canned outage, a congested network, then normal scheduling
- refuse: sufficient_idle_cpu
  repeat: 2
- status: 503
  body: {error: "etcd is sulking"}
  headers: {Retry-After: "3"}
- refuse: congested_network
- refuse: cpu_max_per_instance
- schedule: true
`

// TestScriptSequence replays a script over real HTTP: each POST /instances
// takes the next answer, then scheduling resumes.
func TestScriptSequence(t *testing.T) {
	script, err := ParseScript([]byte(rehearsal))
	if err != nil {
		t.Fatal(err)
	}
	srv, c := startSim(t, func(c *Config) { c.Script = script; c.RetryAfter = 1 })
	if n := srv.ScriptRemaining(); n != 6 {
		t.Errorf("ScriptRemaining %d, want 6", n)
	}
	for k := range 2 {
		a := c.create("web1", 1, 1024, 10, nil)
		m := wantError(t, a, 507, "idle CPU", "stage", "transient")
		if m["stage"] != "sufficient_idle_cpu" || m["transient"] != true || a.header.Get("Retry-After") != "1" {
			t.Errorf("answer %d: %s Retry-After %q", k+1, a.raw, a.header.Get("Retry-After"))
		}
	}
	a := c.create("web1", 1, 1024, 10, nil)
	wantError(t, a, 503, "etcd is sulking")
	if a.header.Get("Retry-After") != "3" {
		t.Errorf("canned header Retry-After %q, want 3", a.header.Get("Retry-After"))
	}
	wantError(t, c.create("web1", 1, 1024, 10, nil), 507, "No free addresses")
	a = c.create("web1", 1, 1024, 10, nil)
	if m := wantError(t, a, 507, "vCPU", "stage", "transient"); m["transient"] != false || a.header.Get("Retry-After") != "" {
		t.Errorf("scripted structural refusal: %s Retry-After %q", a.raw, a.header.Get("Retry-After"))
	}
	c.mustCreate("web1", 1, 1024, 10, nil) // schedule: true
	c.mustCreate("web2", 1, 1024, 10, nil) // the script has run out
	if n := srv.ScriptRemaining(); n != 0 {
		t.Errorf("ScriptRemaining %d, want 0", n)
	}

	// Scripted refusals leave error records like real ones; the canned 503
	// left nothing.
	states := map[string]int{}
	for _, i := range c.do("GET", "/instances", nil).list(t) {
		states[i["state"].(string)]++
	}
	if states["initial-error"] != 4 || states["initial"] != 2 || len(states) != 2 {
		t.Errorf("records by state %v, want 4 error (scripted refusals) and 2 initial", states)
	}
	for _, u := range srv.NodeUsage() {
		if u.Instances > 1 {
			t.Errorf("%s holds %d instances; scripted refusals must hold no capacity", u.Name, u.Instances)
		}
	}
}

// TestScriptedRefusalStillValidates: a bad body is still a 400 while a
// refusal is scripted (the entry is used up).
func TestScriptedRefusalStillValidates(t *testing.T) {
	_, c := startSim(t, func(c *Config) {
		c.Script = []ScriptedAnswer{{Refuse: "sufficient_idle_memory"}}
	})
	wantError(t, c.do("POST", "/instances", `{"name": "x"}`), 400, "instance must specify at least one disk")
	c.mustCreate("x", 1, 1024, 10, nil)
}

func TestParseScriptErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, msg string }{
		{"empty", ``, "empty"},
		{"not a list", `refuse: sufficient_idle_cpu`, "not a YAML list"},
		{"typo in a key", `- refuze: sufficient_idle_cpu`, "refuze"},
		{"unknown stage", `- refuse: sufficient_idle_gpu`, "unknown refusal stage"},
		{"two kinds", "- refuse: sufficient_idle_cpu\n  status: 507", "exactly one"},
		{"nothing", "- repeat: 2", "exactly one"},
		{"success status", "- status: 200", "400-599"},
		{"negative repeat", "- schedule: true\n  repeat: -1", "want 0 to"},
		{"huge repeat", "- schedule: true\n  repeat: 2000000", "want 0 to"},
		{"body without status", "- refuse: queue_state\n  body: {error: x}", "go with status"},
		{"bad header", "- status: 500\n  headers: {\"Bad Header\": x}", "invalid header"},
		{"bad yaml", "- status: [", "not a YAML list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(rehearsal), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(good)
	if err != nil || len(s) != 5 || s[0].Repeat != 2 || s[1].Body["error"] != "etcd is sulking" {
		t.Errorf("LoadScript: %v, %+v", err, s)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing script loaded")
	}
	bad := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(bad, []byte("- refuse: nope\n"), 0o600)
	if _, err := LoadScript(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("error %v should name the file", err)
	}
}

func FuzzParseScript(f *testing.F) {
	for _, seed := range []string{rehearsal, "- schedule: true", "- status: 599\n  body: {a: {b: [1, 2]}}", "- status: 500\n  body: {1: 2}", "[", "- repeat: 99999999999999999999", "- &a [*a]", "- refuse: !!binary aGk="} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		script, err := ParseScript([]byte(data))
		if err != nil {
			return
		}
		// Whatever parses must be usable: it validates and a server takes it.
		cfg := testConfig()
		cfg.Script = script
		srv, err := New(cfg)
		if err != nil {
			t.Fatalf("parsed script rejected by New: %v", err)
		}
		_ = srv.Close()
	})
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("the default config is invalid: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		msg    string
	}{
		{"listen without port", func(c *Config) { c.Listen = "localhost" }, "HOST:PORT"},
		{"listen bad port", func(c *Config) { c.Listen = "127.0.0.1:99999" }, "port"},
		{"negative nodes", func(c *Config) { c.Nodes = -1 }, "node count"},
		{"too many nodes", func(c *Config) { c.Nodes = 5000 }, "node count"},
		{"zero cpus", func(c *Config) { c.NodeCPUs = 0 }, "node CPUs"},
		{"zero memory", func(c *Config) { c.NodeMemoryMiB = 0 }, "memory"},
		{"negative disk", func(c *Config) { c.NodeDiskGiB = -5 }, "disk"},
		{"negative retry-after", func(c *Config) { c.RetryAfter = -1 }, "retry-after"},
		{"negative teardown", func(c *Config) { c.TeardownLag = -time.Second }, "teardown lag"},
		{"zero token ttl", func(c *Config) { c.TokenTTL = 0 }, "token TTL"},
		{"empty key", func(c *Config) { c.AuthKey = "" }, "auth key"},
		{"bad namespace", func(c *Config) { c.AuthNamespace = "no spaces" }, "namespace"},
		{"tags for an unknown node", func(c *Config) { c.NodeTags = map[string][]string{"node7": {"ssd"}} }, `unknown node "node7"`},
		{"bad tag", func(c *Config) { c.NodeTags = map[string][]string{"node1": {"s d"}} }, "invalid tag"},
		{"bad script", func(c *Config) { c.Script = []ScriptedAnswer{{}} }, "script entry 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Validate: %v, want an error mentioning %q", err, tc.msg)
			}
			if _, err := New(cfg); err == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
}

func TestParseNodeTags(t *testing.T) {
	got, err := ParseNodeTags([]string{"node1=ssd,gpu", "node2=ssd", "node1=nvme"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got["node1"], ",") != "ssd,gpu,nvme" || strings.Join(got["node2"], ",") != "ssd" {
		t.Errorf("ParseNodeTags = %v", got)
	}
	for _, bad := range []string{"node1", "=ssd", "node1=", "node1=ssd,,gpu", "node1=s d"} {
		if _, err := ParseNodeTags([]string{bad}); err == nil {
			t.Errorf("ParseNodeTags(%q) accepted", bad)
		}
	}
}

func FuzzParseNodeTags(f *testing.F) {
	for _, seed := range []string{"node1=ssd,gpu", "=", "node1==", ",,,", "node1=\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		tags, err := ParseNodeTags([]string{spec})
		if err != nil {
			return
		}
		for node, list := range tags {
			if node == "" || len(list) == 0 {
				t.Fatalf("%q parsed to an empty node or tag list: %v", spec, tags)
			}
			for _, tag := range list {
				if !tagRE.MatchString(tag) {
					t.Fatalf("%q gave invalid tag %q", spec, tag)
				}
			}
		}
	})
}

// TestConfigBounds: every size the simulator accepts is bounded, and a
// refusal names the setting (issue 28 "Bounds").
func TestConfigBounds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		msg    string
	}{
		{"NaN CPU overcommit", func(c *Config) { c.CPUOvercommit = math.NaN() }, "CPU overcommit"},
		{"infinite RAM overcommit", func(c *Config) { c.RAMOvercommit = math.Inf(1) }, "RAM overcommit"},
		{"NaN RAM reservation", func(c *Config) { c.RAMReservationGiB = math.NaN() }, "RAM reservation"},
		{"huge node CPUs", func(c *Config) { c.NodeCPUs = math.MaxInt }, "node CPUs"},
		{"huge node memory", func(c *Config) { c.NodeMemoryMiB = math.MaxInt }, "node memory"},
		{"huge node disk", func(c *Config) { c.NodeDiskGiB = math.MaxInt }, "node disk"},
		{"huge minimum free disk", func(c *Config) { c.MinFreeDiskGiB = math.MaxInt }, "minimum free disk"},
		{"memory times overcommit overflow", func(c *Config) { c.NodeMemoryMiB = 1 << 40; c.RAMOvercommit = 1000 }, "schedulable MiB"},
		{"huge token TTL", func(c *Config) { c.TokenTTL = time.Duration(math.MaxInt64) }, "token TTL"},
		{"huge teardown lag", func(c *Config) { c.TeardownLag = time.Duration(math.MaxInt64) }, "teardown lag"},
		{"negative network op errors", func(c *Config) { c.NetworkOpErrors = -1 }, "network operation error count"},
		{"bad generation", func(c *Config) { c.Generation = "2025" }, "server generation"},
		{"bad scope", func(c *Config) { c.AuthScopes = []string{"instance.fly"} }, "auth scope"},
		{"multi-line power fault", func(c *Config) { c.PowerFault = "a\nb" }, "power fault"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Validate: %v, want an error naming %q", err, tc.msg)
			}
		})
	}
	// The largest accepted sizes still add up inside an int64.
	cfg := DefaultConfig()
	cfg.Nodes, cfg.NodeCPUs, cfg.CPUOvercommit = maxNodes, 1<<20, 1000
	cfg.NodeMemoryMiB, cfg.RAMOvercommit = 1<<40, 100
	cfg.NodeDiskGiB = 1 << 40
	if err := cfg.Validate(); err != nil {
		t.Fatalf("largest sizes refused: %v", err)
	}
	cfg.Listen = "127.0.0.1:0"
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var total int64
	for _, u := range srv.NodeUsage() {
		if u.CPUs <= 0 || u.MemoryMiB <= 0 || u.DiskGiB <= 0 {
			t.Fatalf("node %s capacity overflowed: %+v", u.Name, u)
		}
		total += u.CPUs
	}
	if total <= 0 {
		t.Errorf("cluster vCPUs overflowed: %d", total)
	}
}
