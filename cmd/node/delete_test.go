package node_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// shakenfist da448b1a NodeEndpoint.delete answers the node, now deleted
// (node_delete_example, SOURCES.md).
func TestNodeDeleteGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "DELETE", "/nodes/sf-1", 200, "sf2024/node_deleted.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "node_delete", "node", "delete", "sf-1", "--yes")
}

// Removing a node asks on a terminal and needs --yes elsewhere, as the
// delete-all commands do; nothing is sent until it is confirmed.
func TestNodeDeleteConfirms(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "DELETE", "/nodes/sf-1", 200, "sf2024/node_deleted.json")
	r := clitest.AgainstStubs(s)
	if res := r.Run(t, "node", "delete", "sf-1"); res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "--yes") {
		t.Fatal(res)
	}
	tty := r
	tty.Tty, tty.Stdin = true, "no\n"
	if res := tty.Run(t, "node", "delete", "sf-1"); res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, `Delete node "sf-1" from the cluster`) {
		t.Fatal(res)
	}
	if n := s.Count("DELETE", "/nodes/sf-1"); n != 0 {
		t.Fatalf("%d deletes sent before confirmation", n)
	}
	tty.Stdin = "yes\n"
	if res := tty.Run(t, "node", "delete", "sf-1"); res.Code != 0 || !strings.Contains(res.Stdout, "deleted") || s.Count("DELETE", "/nodes/sf-1") != 1 {
		t.Fatal(res)
	}
	s.Reply("DELETE", "/nodes/sf-9", 404, `{"error": "node not found", "status": 404}`)
	if res := r.Run(t, "node", "delete", "sf-9", "-y"); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}
