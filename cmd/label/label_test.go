package label_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// recorded serves shakenfist da448b1a's label_example (label.py) and,
// for the list, it beside artifact_get_example (artifact.py).
func recorded(t *testing.T) *clitest.Stubs {
	fa := clitest.NewStubs(t)
	label := clitest.ReadGolden(t, "sf2024/label.json")
	fa.Offer("GET", "/artifacts", 200, "["+clitest.ReadGolden(t, "sf2024/artifact.json")+","+label+"]")
	fa.Offer("GET", "/label/debian-11-production", 200, label)
	fa.Offer("POST", "/label/debian-11-production", 200, label)
	fa.Offer("DELETE", "/label/debian-11-production", 200, strings.Replace(label, `"state": "created"`, `"state": "deleted"`, 1))
	// label.py at da448b1a: error(404) not returned, then IndexError.
	fa.Offer("GET", "/label/nosuch", 500, `{"error": "list index out of range", "status": 500}`)
	return fa
}

func TestLabelListGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "label_list", "label", "list")
}

func TestLabelShowGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "label_show", "label", "show", "debian-11-production")
}

func TestLabelUpdateAndDelete(t *testing.T) {
	fa := recorded(t)
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "label", "update", "debian-11-production", "ffdfce7f-728e-4b76-83c2-304e252f98b1", "-o", "simple"); res.Code != 0 || !strings.Contains(res.Stdout, "blob_uuid\tffdfce7f-728e-4b76-83c2-304e252f98b1\n") {
		t.Errorf("update: %s", res)
	}
	if got := fa.LastBody("POST", "/label/debian-11-production"); got != `{"blob_uuid":"ffdfce7f-728e-4b76-83c2-304e252f98b1"}` {
		t.Errorf("update body %s", got)
	}
	if res := r.Run(t, "label", "delete", "debian-11-production", "-o", "simple"); res.Code != 0 || !strings.Contains(res.Stdout, "state\tdeleted\n") {
		t.Errorf("delete: %s", res)
	}
	if res := r.Run(t, "label", "show", "nosuch"); res.Code != cmdutil.ExitFailure {
		t.Errorf("unknown label: %s", res)
	}
	if res := r.Run(t, "label", "update", "a/b/c", "x"); res.Code != cmdutil.ExitUsage {
		t.Errorf("too deep a label: %s", res)
	}
}
