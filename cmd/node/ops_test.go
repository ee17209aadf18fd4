package node_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestNodeEventsGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	// shakenfist da448b1a external_api/node.py node_events_example.
	s.ReplyRecorded(t, "GET", "/nodes/node1/events", 200, "sf2024/node_events.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "node_events", "node", "events", "node1")
}

// The 2026 server routes GET /admin/resources (scheduler.py
// summarize_resources' total and per_node, as client/operator2_test.go
// records them).
const resources2026 = `{"total": {"cpu_available": 188, "ram_available": 94208}, "per_node": {"sf-2": {"cpu_available": 94, "ram_available": 47104, "cpu_max_per_instance": 16, "disk_free": 812}, "sf-1": {"cpu_available": 94, "ram_available": 47104, "cpu_max_per_instance": 16}}}`

func TestNodeResourcesGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/admin/resources", 200, resources2026)
	r := clitest.AgainstStubs(s)
	clitest.GoldenFormatsOf(t, r, "node_resources", "node", "resources")
	res := r.Run(t, "node", "resources", "sf-2", "-o", "json")
	var rows []map[string]any
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &rows) != nil || len(rows) != 1 || rows[0]["node"] != "sf-2" || rows[0]["disk_free"] != 812.0 {
		t.Fatal(res)
	}
	if res := r.Run(t, "node", "resources", "sf-9"); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}

func TestNodeResourcesOnA2024Server(t *testing.T) {
	// The 2024 release has the handler but never routes it: Flask's HTML
	// 404, which is not "this is not a Shakenfist API".
	s := clitest.NewStubs(t)
	s.ReplyWith("GET", "/admin/resources", 404, http.Header{"Content-Type": {"text/html"}}, clitest.ReadGolden(t, "flask_404.html"))
	res := clitest.AgainstStubs(s).Run(t, "node", "resources")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "does not support cluster resources") ||
		!strings.Contains(res.Stderr, "node events NODE --type resources") || strings.Contains(res.Stderr, "not a Shakenfist API") {
		t.Fatal(res)
	}
}
