package namespace_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

func TestNamespaceListGolden(t *testing.T) {
	clitest.GoldenFormats(t, clitest.NewFakeAPI(t), "namespace_list", "namespace", "list")
}
