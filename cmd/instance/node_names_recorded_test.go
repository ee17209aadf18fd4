package instance_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// The 2026 server's own API reference (instance.py's instance_get_example)
// still shows an instance's node as a name, "sf-3", although the same file
// says placement holds a node UUID: a node that is not UUID-shaped is
// shown as it is, with no node lookup (which a non-admin token could not
// make), so both forms of the real answer read right.
func TestRecorded2026InstanceNodeNameIsShownAsIs(t *testing.T) {
	body, err := os.ReadFile("../../client/testdata/sf2026/instance_get.json")
	if err != nil {
		t.Fatal(err)
	}
	fa := clitest.NewStubs(t) // no GET /nodes: a node lookup fails the test
	fa.Reply("GET", "/instances/example", 200, string(body))
	res := clitest.AgainstStubs(fa).Run(t, "instance", "show", "example", "-o", "simple")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if !strings.Contains(res.Stdout, "node\tsf-3\n") || strings.Contains(res.Stdout, "node_name") {
		t.Errorf("want node sf-3 and no node_name:\n%s", res.Stdout)
	}
	if n := fa.Count("GET", "/nodes"); n != 0 {
		t.Errorf("%d node lookups for a node that is already a name", n)
	}
}
