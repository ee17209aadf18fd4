package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestNodeEventsGolden(t *testing.T) {
	fa := clitest.NewFakeAPI(t)
	// shakenfist da448b1a external_api/node.py node_events_example.
	fa.Reply("GET", "/nodes/node1/events", 200, clitest.ReadGolden(t, "sf2024/node_events.json"))
	clitest.GoldenFormats(t, fa, "node_events", "node", "events", "node1")
}

// The 2026 server routes GET /admin/resources (scheduler.py
// summarize_resources' total and per_node, as client/operator2_test.go
// records them).
const resources2026 = `{"total": {"cpu_available": 188, "ram_available": 94208}, "per_node": {"sf-2": {"cpu_available": 94, "ram_available": 47104, "cpu_max_per_instance": 16, "disk_free": 812}, "sf-1": {"cpu_available": 94, "ram_available": 47104, "cpu_max_per_instance": 16}}}`

func TestNodeResourcesGolden(t *testing.T) {
	fa := clitest.NewFakeAPI(t)
	fa.Reply("GET", "/admin/resources", 200, resources2026)
	clitest.GoldenFormats(t, fa, "node_resources", "node", "resources")
	res := clitest.Against(fa).Run(t, "node", "resources", "sf-2", "-o", "json")
	var rows []map[string]any
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &rows) != nil || len(rows) != 1 || rows[0]["node"] != "sf-2" || rows[0]["disk_free"] != 812.0 {
		t.Fatal(res)
	}
	if res := clitest.Against(fa).Run(t, "node", "resources", "sf-9"); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}

func TestNodeResourcesOnA2024Server(t *testing.T) {
	// The 2024 release has the handler but never routes it: Flask's HTML
	// 404, which is not "this is not a Shakenfist API".
	fa := clitest.NewFakeAPI(t)
	fa.Override = map[string]clitest.FakeReply{"GET /admin/resources": {Status: 404, Header: map[string]string{"Content-Type": "text/html"}, Body: clitest.ReadGolden(t, "flask_404.html")}}
	res := clitest.Against(fa).Run(t, "node", "resources")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "does not support cluster resources") ||
		!strings.Contains(res.Stderr, "node events NODE --type resources") || strings.Contains(res.Stderr, "not a Shakenfist API") {
		t.Fatal(res)
	}
}
