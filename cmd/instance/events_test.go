package instance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestInstanceEventsFlags(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/web1/events", 200, string(clitest.FixtureEvents))
	res := clitest.AgainstStubs(fa).Run(t, "instance", "events", "web1", "--type", "audit", "--limit", "10", "-o", "json")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("GET", "/instances/web1/events"); got != `{"event_type":"audit","limit":10}` {
		t.Errorf("body %s", got)
	}
	var events []map[string]any
	if json.Unmarshal([]byte(res.Stdout), &events) != nil || len(events) != 2 || events[0]["type"] != "audit" || events[0]["extra"] == nil {
		t.Errorf("-o json is not the server's objects: %s", res.Stdout)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "events", "web1", "--type", "bogus"); res.Code != cmdutil.ExitUsage {
		t.Error(res)
	}
}

// --limit is bounded to 1–1000, the range a 2026 server validates
// (issue 25): outside it is a usage error before any request.
func TestInstanceEventsLimitIsBounded(t *testing.T) {
	for _, limit := range []string{"0", "-1", "1001"} {
		fa := clitest.NewStubs(t)
		res := clitest.AgainstStubs(fa).Run(t, "instance", "events", "web1", "--limit", limit)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, `for "-l, --limit" flag: it is out of range: want a whole number from 1 to 1000`) || fa.Count("GET", "/instances/web1/events") != 0 {
			t.Errorf("--limit %s: %s", limit, res)
		}
	}
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/web1/events", 200, string(clitest.FixtureEvents))
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "events", "web1", "--limit", "1000"); res.Code != 0 {
		t.Errorf("--limit 1000: %s", res)
	}
}
