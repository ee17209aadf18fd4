package instance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// The 507 bodies of shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md at 0c24a714 ("Capacity refusals"), each sent to a real
// `instance create` run: exit code 75 only for "transient": true, 69 for
// every refusal waiting will not fix, and a hint that says what to do.
func TestInstanceCreateCapacityRefusals(t *testing.T) {
	transientHeader := map[string]string{"Retry-After": "15"}
	cases := []struct {
		name   string
		reply  clitest.CannedReply
		code   int
		stage  string
		hint   string
		transp bool
	}{
		{"sufficient_idle_cpu", clitest.Refusal("sufficient_idle_cpu", "true", transientHeader), 75, "sufficient_idle_cpu", "short of capacity at stage sufficient_idle_cpu right now; --retry-transient-capacity waits and retries", true},
		{"sufficient_idle_memory", clitest.Refusal("sufficient_idle_memory", "true", transientHeader), 75, "sufficient_idle_memory", "at stage sufficient_idle_memory right now; --retry-transient-capacity", true},
		{"sufficient_free_disk", clitest.Refusal("sufficient_free_disk", "true", transientHeader), 75, "sufficient_free_disk", "at stage sufficient_free_disk right now; --retry-transient-capacity", true},
		{"sufficient_idle_disk", clitest.Refusal("sufficient_idle_disk", "true", transientHeader), 75, "sufficient_idle_disk", "at stage sufficient_idle_disk right now; --retry-transient-capacity", true},
		{"queue_state", clitest.Refusal("queue_state", "true", transientHeader), 75, "queue_state", "at stage queue_state right now; --retry-transient-capacity", true},
		{"capacity_guard", clitest.Refusal("capacity_guard", "true", transientHeader), 75, "capacity_guard", "at stage capacity_guard right now; --retry-transient-capacity", true},
		{"cpu_max_per_instance", clitest.Refusal("cpu_max_per_instance", "false", nil), 69, "cpu_max_per_instance", "no node in the cluster hosts that many vCPUs; ask for fewer vCPUs", false},
		{"is_hypervisor", clitest.Refusal("is_hypervisor", "false", nil), 69, "is_hypervisor", "no candidate node is a hypervisor", false},
		{"pre_schedule", clitest.Refusal("pre_schedule", "false", nil), 69, "pre_schedule", "no candidate nodes to place on", false},
		{"unknown", clitest.Refusal("unknown", "false", nil), 69, "unknown", "the server gave no stage for this refusal", false},
		{"no stage (address pool, CongestedNetwork)", clitest.CannedReply{Status: 507, Body: `{"error": "Network is congested: no free addresses", "status": 507}`}, 69, "", "the network's address pool is exhausted: add address space or free a network", false},
		{"no transient field on a transient stage", clitest.CannedReply{Status: 507, Body: `{"error": "no capacity", "status": 507, "stage": "sufficient_idle_cpu"}`, Header: transientHeader}, 69, "sufficient_idle_cpu", "waiting will not fix a refusal at stage sufficient_idle_cpu", false},
		// Issue 25: a malformed field is said to be malformed, not permanent.
		{"transient as a string", clitest.Refusal("capacity_guard", `"true"`, transientHeader), 69, "capacity_guard", "is not a JSON true or false, so whether waiting helps at stage capacity_guard is unknown", false},
		{"transient false on a transient stage", clitest.Refusal("sufficient_idle_memory", "false", nil), 69, "sufficient_idle_memory", "waiting will not fix", false},
		{"non-JSON body", clitest.CannedReply{Status: 507, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><title>507 Insufficient Storage</title></html>"}, 69, "", "without saying where", false},
		{"409 hard affinity", clitest.CannedReply{Status: 409, Body: `{"error": "no node satisfies require_with_tag [gpu]", "status": 409}`}, 69, "", "cannot be met by any node; the cluster is not full", false},
		{"404 unknown placement node", clitest.CannedReply{Status: 404, Body: `{"error": "node not found: node99", "status": 404}`}, 5, "", "\"shakectl node list\" shows the nodes", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The refusal, with the request ID the server gave it.
			reply := c.reply
			reply.Header = map[string]string{"X-Request-ID": "req-0002"}
			for k, v := range c.reply.Header {
				reply.Header[k] = v
			}
			fa := clitest.NewStubs(t)
			fa.Canned("POST", "/instances", reply)
			res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20@debian:12")
			if res.Code != c.code {
				t.Errorf("exit %d, want %d\n%s", res.Code, c.code, res)
			}
			lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "error: POST /instances: ") || !strings.HasPrefix(lines[1], "hint: ") {
				t.Fatalf("want an error line and a hint line, got:\n%s", res.Stderr)
			}
			if !strings.Contains(lines[1], c.hint) {
				t.Errorf("hint %q, want it to say %q", lines[1], c.hint)
			}
			if res.Stdout != "" {
				t.Errorf("stdout %q", res.Stdout)
			}
			if n := fa.Count("POST", "/instances"); n != 1 {
				t.Errorf("%d creates sent without --retry-transient-capacity, want 1", n)
			}

			// The same refusal as a JSON object on stderr with -o json.
			fa = clitest.NewStubs(t)
			fa.Canned("POST", "/instances", reply)
			res = clitest.AgainstStubs(fa).Run(t, "instance", "create", "web1", "2", "2048", "-d", "20@debian:12", "-o", "json")
			if res.Code != c.code || res.Stdout != "" {
				t.Fatalf("-o json: %s", res)
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(res.Stderr), &obj); err != nil {
				t.Fatalf("-o json: stderr is not one JSON object: %v\n%s", err, res.Stderr)
			}
			if obj["status"] != float64(c.reply.Status) || obj["exit_code"] != float64(c.code) || obj["attempts"] != 1.0 {
				t.Errorf("-o json: %v", obj)
			}
			if _, ok := obj["elapsed_seconds"].(float64); !ok {
				t.Errorf("-o json: no elapsed_seconds: %v", obj)
			}
			if obj["request_id"] != "req-0002" {
				t.Errorf("-o json: request_id %v", obj["request_id"])
			}
			if c.stage != "" && obj["stage"] != c.stage {
				t.Errorf("-o json: stage %v, want %s", obj["stage"], c.stage)
			}
			if c.reply.Status == 507 && strings.HasPrefix(c.reply.Body, "{") {
				if obj["transient"] != c.transp {
					t.Errorf("-o json: transient %v, want %v", obj["transient"], c.transp)
				}
			} else if _, ok := obj["transient"]; ok {
				t.Errorf("-o json: transient given for a refusal without a JSON body: %v", obj)
			}
		})
	}
}
