package cmd

import "testing"

func TestNodeListGolden(t *testing.T) {
	goldenFormats(t, newFakeAPI(t), "node_list", "node", "list")
}

func TestNodeShowGolden(t *testing.T) {
	goldenFormats(t, newFakeAPI(t), "node_show", "node", "show", "node1")
}

func TestNodeShowUnknown(t *testing.T) {
	res := against(newFakeAPI(t)).run(t, "node", "show", "node99")
	if res.code != ExitNotFound {
		t.Fatal(res)
	}
}
