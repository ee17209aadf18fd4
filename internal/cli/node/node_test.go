package node_test

import (
	"testing"

	"github.com/shakenfist/shakectl/internal/cli/clitest"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
)

func TestNodeListGolden(t *testing.T) {
	clitest.GoldenFormats(t, clitest.NewFakeAPI(t), "node_list", "node", "list")
}

func TestNodeShowGolden(t *testing.T) {
	clitest.GoldenFormats(t, clitest.NewFakeAPI(t), "node_show", "node", "show", "node1")
}

func TestNodeShowUnknown(t *testing.T) {
	res := clitest.Against(clitest.NewFakeAPI(t)).Run(t, "node", "show", "node99")
	if res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}
