package node_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/node"
	"github.com/shakenfist/shakectl/output"
)

// nodeStubs answers GET /nodes with the fake cloud's nodes.
func nodeStubs(t *testing.T) *clitest.Stubs {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/nodes", 200, string(clitest.JoinRaw(clitest.FixtureNodes)))
	return s
}

func TestNodeListGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(nodeStubs(t)), "node_list", "node", "list")
}

func TestNodeShowGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/nodes/node1", 200, string(clitest.FixtureNodes[0]))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "node_show", "node", "show", "node1")
}

func TestNodeShowUnknown(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/nodes/node99", 404, `{"error": "node not found", "status": 404}`)
	res := clitest.AgainstStubs(s).Run(t, "node", "show", "node99")
	if res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}

// TestNodeListBuiltAlone: a command built on its own, outside the tree,
// gets everything it needs from a Factory (its configuration from the
// environment and files, and the client), as a test of one verb wants.
func TestNodeListBuiltAlone(t *testing.T) {
	url := nodeStubs(t).Serve()
	ios, _, out, errOut := output.Test()
	env := map[string]string{"SHAKENFIST_API_URL": url, "SHAKENFIST_NAMESPACE": clitest.TestNamespace, "SHAKENFIST_KEY": clitest.TestKey}
	dir := t.TempDir()
	f := &cmdutil.Factory{
		IOStreams:        ios,
		Getenv:           func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		HomeDir:          dir,
		SystemConfigFile: filepath.Join(dir, "none.json"),
	}
	f.Wire()
	c := node.NewCmdList(f)
	c.SetArgs(nil)
	if err := c.Execute(); err != nil {
		t.Fatalf("node list alone: %v; stderr %s", err, errOut)
	}
	if !strings.Contains(out.String(), "node1") || !strings.Contains(out.String(), "node2") {
		t.Errorf("node list alone printed %q", out)
	}
}
