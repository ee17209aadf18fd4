package clusteroperation_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The recorded 2026 answers (client/testdata/sf2026, from client-python
// 74d6e129 test_delete_network_failure_raises and
// test_get_cluster_operation_chain) in every output format.
func TestClusterOperationShowGolden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	fa.ReplyRecorded(t, "GET", "/clusteroperations/net_op/op-uuid", 200, "sf2026/clusteroperation_error.json")
	fa.ReplyRecorded(t, "GET", "/clusteroperations/op-1/chain", 200, "sf2026/clusteroperation_chain.json")
	r := clitest.AgainstStubs(fa)
	clitest.GoldenFormatsOf(t, r, "cluster_operation_show", "cluster-operation", "show", "net_op/op-uuid")
	clitest.GoldenFormatsOf(t, r, "cluster_operation_show_two_args", "cluster-operation", "show", "net_op", "op-uuid")
	clitest.GoldenFormatsOf(t, r, "cluster_operation_chain", "cluster-operation", "show", "--chain", "op-1")
}

// What a user can get wrong is a usage error naming the forms.
func TestClusterOperationShowUsage(t *testing.T) {
	fa := clitest.NewStubs(t)
	for _, args := range [][]string{
		{"op-uuid"},                       // no type
		{"net_op/"},                       // empty uuid
		{"/op-uuid"},                      // empty type
		{"net_op/op/uuid"},                // a slash in the uuid
		{"a", "b", "c"},                   // too many
		{"--chain"},                       // chain without a uuid
		{"--chain", "--wait", "net_op/x"}, // both
	} {
		res := clitest.AgainstStubs(fa).Run(t, append([]string{"cluster-operation", "show"}, args...)...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "OP_TYPE") && !strings.Contains(res.Stderr, "do not go together") {
			t.Errorf("%v: %s", args, res)
		}
	}
	if n := len(fa.Requests()); n != 0 {
		t.Errorf("%d requests sent for usage errors", n)
	}
}

// An operation of another namespace is a 403: exit 4 (clusteroperation.py
// @1bd1c112 answers 403 across namespaces).
func TestClusterOperationShowForbidden(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	fa.Reply("GET", "/clusteroperations/net_op/x", 403, `{"error": "you cannot access this operation", "status": 403}`)
	if res := clitest.AgainstStubs(fa).Run(t, "cluster-operation", "show", "net_op/x"); res.Code != cmdutil.ExitAuth {
		t.Errorf("%s", res)
	}
}
