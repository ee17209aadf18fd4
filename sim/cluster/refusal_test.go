package cluster

import (
	"net/http"
	"strings"
	"testing"
)

// TestRefusals checks every refusal kind the capacity seed describes, over
// real HTTP: status, body fields, and whether Retry-After is sent.
func TestRefusals(t *testing.T) {
	type check struct {
		status    int
		msg       string
		stage     string // "" means no stage or transient field at all
		transient bool
	}
	tests := []struct {
		name   string
		config func(*Config)
		// setup runs first; its creates must succeed.
		setup func(c *apiClient)
		// try is the create that must be refused.
		try  func(c *apiClient) answer
		want check
	}{
		{
			name:  "no node has enough idle cpu",
			setup: func(c *apiClient) { c.mustCreate("a", 4, 1024, 10, nil); c.mustCreate("b", 3, 1024, 10, nil) },
			try:   func(c *apiClient) answer { return c.create("c", 2, 1024, 10, nil) },
			want:  check{507, "idle CPU", "sufficient_idle_cpu", true},
		},
		{
			name:  "no node has enough idle memory",
			setup: func(c *apiClient) { c.mustCreate("a", 1, 8000, 10, nil); c.mustCreate("b", 1, 8000, 10, nil) },
			try:   func(c *apiClient) answer { return c.create("c", 1, 1024, 10, nil) },
			want:  check{507, "RAM", "sufficient_idle_memory", true},
		},
		{
			name:  "no node has enough free disk",
			setup: func(c *apiClient) { c.mustCreate("a", 1, 1024, 95, nil); c.mustCreate("b", 1, 1024, 95, nil) },
			try:   func(c *apiClient) answer { return c.create("c", 1, 1024, 10, nil) },
			want:  check{507, "disk", "sufficient_free_disk", true},
		},
		{
			name:   "capacity guard refuses a placement the metrics do not show yet",
			config: func(c *Config) { c.CapacityGuard = true; c.Nodes = 1 },
			setup:  func(c *apiClient) { c.mustCreate("a", 4, 1024, 10, nil) },
			try:    func(c *apiClient) answer { return c.create("b", 1, 1024, 10, nil) },
			want:   check{507, "admission guard", "capacity_guard", true},
		},
		{
			name: "more vCPUs than any node hosts",
			try:  func(c *apiClient) answer { return c.create("big", 5, 1024, 10, nil) },
			want: check{507, "vCPU limit", "cpu_max_per_instance", false},
		},
		{
			name:   "placed on a node that is not a hypervisor",
			config: func(c *Config) { c.NonHypervisorNodes = 1 },
			try: func(c *apiClient) answer {
				return c.create("a", 1, 1024, 10, map[string]any{"placed_on": "control1"})
			},
			want: check{507, "No nodes with metrics", "is_hypervisor", false},
		},
		{
			name:   "no candidate nodes at all",
			config: func(c *Config) { c.Nodes = 0 },
			try:    func(c *apiClient) answer { return c.create("a", 1, 1024, 10, nil) },
			want:   check{507, "No nodes with metrics", "pre_schedule", false},
		},
		{
			name: "the network's address pool is exhausted",
			setup: func(c *apiClient) {
				c.mustNetwork("tiny", "10.1.0.0/29") // five pool addresses
				for _, name := range []string{"a", "b", "c", "d", "e"} {
					c.mustCreate(name, 0, 1, 1, map[string]any{"network": []map[string]any{{"network_uuid": "tiny"}}})
				}
			},
			try: func(c *apiClient) answer {
				return c.create("b", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": "tiny"}}})
			},
			want: check{507, "No free addresses", "", false},
		},
		{
			name:   "hard affinity no node satisfies",
			config: func(c *Config) { c.NodeTags = map[string][]string{"node1": {"ssd"}, "node2": {"ssd", "gpu"}} },
			try: func(c *apiClient) answer {
				return c.create("a", 1, 1024, 10, map[string]any{"metadata": map[string]any{
					"affinity": map[string]any{"require_with_tag": []string{"gpu"}, "require_without_tag": []string{"ssd"}},
				}})
			},
			want: check{409, "affinity", "", false},
		},
		{
			name: "placed on an unknown node",
			try: func(c *apiClient) answer {
				return c.create("a", 1, 1024, 10, map[string]any{"placed_on": "node99"})
			},
			want: check{404, "Specified node does not exist", "", false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := startSim(t, tc.config)
			if tc.setup != nil {
				tc.setup(c)
			}
			before := srv.NodeUsage()
			a := tc.try(c)
			var m map[string]any
			if tc.want.stage != "" {
				m = wantError(t, a, tc.want.status, tc.want.msg, "stage", "transient")
				if m["stage"] != tc.want.stage {
					t.Errorf("stage %v, want %s", m["stage"], tc.want.stage)
				}
				if m["transient"] != tc.want.transient {
					t.Errorf("transient %v, want %v", m["transient"], tc.want.transient)
				}
			} else {
				wantError(t, a, tc.want.status, tc.want.msg)
			}
			ra, hasRA := a.header["Retry-After"]
			switch {
			case tc.want.transient && (!hasRA || ra[0] != "15"):
				t.Errorf("Retry-After %q, want 15 on a transient refusal", ra)
			case !tc.want.transient && hasRA:
				t.Errorf("Retry-After %q on a refusal that waiting will not fix", ra)
			}
			if a.header.Get("X-Request-ID") == "" {
				t.Error("no X-Request-ID on the refusal")
			}
			// A refusal never holds capacity.
			after := srv.NodeUsage()
			for k := range before {
				if after[k].UsedCPUs != before[k].UsedCPUs || after[k].UsedMemoryMiB != before[k].UsedMemoryMiB || after[k].UsedDiskGiB != before[k].UsedDiskGiB {
					t.Errorf("node %s usage changed by a refusal: %+v -> %+v", after[k].Name, before[k], after[k])
				}
			}
		})
	}
}

// TestRetryAfterOverride: --retry-after shortens the hint for rehearsals.
func TestRetryAfterOverride(t *testing.T) {
	_, c := startSim(t, func(c *Config) { c.RetryAfter = 2; c.Nodes = 1 })
	c.mustCreate("a", 4, 1024, 10, nil)
	a := c.create("b", 1, 1024, 10, nil)
	wantError(t, a, 507, "idle CPU", "stage", "transient")
	if got := a.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2", got)
	}
}

// TestRefusedCreateLeavesErrorRecord: the refused create's record stays in
// the error state holding its address (not capacity) until its delete.
func TestRefusedCreateLeavesErrorRecord(t *testing.T) {
	srv, c := startSim(t, func(c *Config) { c.Nodes = 1 })
	c.mustNetwork("net", "10.2.0.0/29")
	onNet := func(addr string) map[string]any {
		return map[string]any{"network": []map[string]any{{"network_uuid": "net", "address": addr}}}
	}
	c.mustCreate("a", 4, 1024, 10, onNet("10.2.0.2"))
	wantError(t, c.create("b", 1, 1024, 10, onNet("10.2.0.3")), 507, "idle CPU", "stage", "transient")

	var refused map[string]any
	for _, i := range c.do("GET", "/instances", nil).list(t) {
		if i["name"] == "b" {
			refused = i
		}
	}
	if refused == nil || refused["state"] != "initial-error" || refused["node"] != nil || refused["error_message"] == nil {
		t.Fatalf("refused create's record: %v, want state initial-error, no node, an error_message", refused)
	}
	// It still holds 10.2.0.3...
	wantError(t, c.create("c", 1, 1024, 10, onNet("10.2.0.3")), 409, "in use")
	// ...but no capacity: node1's ledger is exactly instance a.
	if u := srv.NodeUsage()[0]; u.UsedCPUs != 4 || u.Instances != 1 {
		t.Errorf("node usage %+v, want only instance a charged", u)
	}
	// The refusal is in its events, naming the stage.
	events := c.do("GET", "/instances/"+refused["uuid"].(string)+"/events", nil).list(t)
	found := false
	for _, e := range events {
		if strings.Contains(e["message"].(string), "no candidates at stage sufficient_idle_cpu") {
			found = true
		}
	}
	if !found {
		t.Errorf("no 'schedule has no candidates at stage' event in %v", events)
	}
	if c.do("GET", "/instances/b", nil).status != http.StatusOK {
		t.Error("the error record cannot be shown by name")
	}
}
