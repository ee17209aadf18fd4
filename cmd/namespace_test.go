package cmd

import "testing"

func TestNamespaceListGolden(t *testing.T) {
	goldenFormats(t, newFakeAPI(t), "namespace_list", "namespace", "list")
}
