package blob_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// recorded serves shakenfist da448b1a's blob_get_example (blob.py) and,
// for the references, artifact_get_example (artifact.py), whose version
// 101 is edited to name the blob (SOURCES.md).
func recorded(t *testing.T) *clitest.Stubs {
	fa := clitest.NewStubs(t)
	blob := clitest.ReadGolden(t, "sf2024/blob.json")
	art := strings.Replace(clitest.ReadGolden(t, "sf2024/artifact.json"), "25adc99e-369b-4959-a387-2ae046ee6ad4", "578da8b6-eb98-4e10-bb36-e4d4d763d312", -1)
	fa.Offer("GET", "/blobs", 200, "["+blob+"]")
	fa.Offer("GET", "/blobs/578da8b6-eb98-4e10-bb36-e4d4d763d312", 200, blob)
	fa.Offer("GET", "/artifacts", 200, "["+art+"]")
	fa.Offer("GET", "/blobs/nosuch", 404, `{"error": "blob not found", "status": 404}`)
	return fa
}

func TestBlobListGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "blob_list", "blob", "list")
}

func TestBlobShowGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "blob_show", "blob", "show", "578da8b6-eb98-4e10-bb36-e4d4d763d312")
}

func TestBlobShowUnknown(t *testing.T) {
	if res := clitest.AgainstStubs(recorded(t)).Run(t, "blob", "show", "nosuch"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "blob not found") {
		t.Fatal(res)
	}
}

// A key of another namespace may not list blobs (caller_is_admin: 401).
func TestBlobListNotAdmin(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/blobs", 401, `{"error": "unauthorized", "status": 401}`)
	if res := clitest.AgainstStubs(fa).Run(t, "blob", "list"); res.Code != cmdutil.ExitAuth {
		t.Fatal(res)
	}
}
