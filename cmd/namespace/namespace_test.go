package namespace_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

func TestNamespaceListGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/auth/namespaces", 200, string(clitest.JoinRaw(clitest.FixtureNamespaces)))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "namespace_list", "namespace", "list")
}
