package node_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The process metrics object as the 2024 daemon builds it
// (client/testdata/sf2024/processmetrics.json: sf_net at 0.36 of a CPU):
// listed over the default threshold, exit 3; under --threshold 0.5, or
// with --ignore sf_net, nothing and exit 0.
func TestCPUHogsRecorded(t *testing.T) {
	stubs := func() *clitest.Stubs {
		s := clitest.NewStubs(t)
		s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
		s.Reply("GET", "/nodes", 200, string(clitest.JoinRaw(clitest.FixtureNodes)))
		s.ReplyRecorded(t, "GET", "/nodes/node1/processmetrics", 200, "sf2024/processmetrics.json").Always()
		s.Reply("GET", "/nodes/node2/processmetrics", 200, "{}").Always()
		s.Reply("GET", "/nodes/db0/processmetrics", 200, "null").Always()
		return s
	}
	res := clitest.AgainstStubs(stubs()).Run(t, "node", "cpuhogs", "-o", "simple")
	if res.Code != cmdutil.ExitChecksFailed || res.Stdout != "node1\tsf_net\t0.36\t0.25\n" || !strings.Contains(res.Stderr, "1 process uses more than 0.25 of a CPU") {
		t.Fatal(res)
	}
	for _, args := range [][]string{{"--threshold", "0.5"}, {"--ignore", "sf_net,etcd"}} {
		res := clitest.AgainstStubs(stubs()).Run(t, append([]string{"node", "cpuhogs"}, args...)...)
		if res.Code != 0 {
			t.Errorf("%v: %s", args, res)
		}
	}
}
