package artifact_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// recorded serves the real answers of shakenfist da448b1a's swagger
// examples (client/testdata/sf2024, SOURCES.md).
func recorded(t *testing.T) *clitest.Stubs {
	fa := clitest.NewStubs(t)
	art := clitest.ReadGolden(t, "sf2024/artifact.json")
	fa.Offer("GET", "/artifacts", 200, "["+art+","+clitest.ReadGolden(t, "sf2024/label.json")+"]")
	fa.Offer("GET", "/artifacts/debian:11", 200, art)
	fa.Offer("GET", "/artifacts/debian:11/versions", 200, clitest.ReadGolden(t, "sf2024/artifact_versions.json"))
	fa.Offer("GET", "/artifacts/debian:11/events", 200, clitest.ReadGolden(t, "sf2024/artifact_events.json"))
	fa.Offer("DELETE", "/artifacts/debian:11", 200, clitest.ReadGolden(t, "sf2024/artifact_deleted.json"))
	fa.Offer("DELETE", "/artifacts/gone", 200, "null")
	fa.Offer("GET", "/artifacts/nosuch", 404, `{"error": "artifact not found", "status": 404}`)
	fa.Offer("POST", "/artifacts/debian:11/unshare", 403, `{"error": "artifact not shared", "status": 403}`)
	return fa
}

func TestArtifactListGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "artifact_list", "artifact", "list")
}

func TestArtifactShowGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "artifact_show", "artifact", "show", "debian:11")
}

func TestArtifactVersionsGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "artifact_versions", "artifact", "versions", "debian:11")
}

func TestArtifactEventsGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(recorded(t)), "artifact_events", "artifact", "events", "debian:11")
}

func TestArtifactExitCodes(t *testing.T) {
	r := clitest.AgainstStubs(recorded(t))
	if res := r.Run(t, "artifact", "show", "nosuch"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "artifact not found") {
		t.Errorf("unknown artifact: %s", res)
	}
	if res := r.Run(t, "artifact", "unshare", "debian:11"); res.Code != cmdutil.ExitAuth || !strings.Contains(res.Stderr, "artifact not shared") {
		t.Errorf("unshare of an unshared artifact: %s", res)
	}
	if res := r.Run(t, "artifact", "delete", "debian:11", "-o", "simple"); res.Code != 0 || !strings.Contains(res.Stdout, "state\tdeleted\n") {
		t.Errorf("delete: %s", res)
	}
	if res := r.Run(t, "artifact", "delete", "gone", "-o", "json"); res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "artifact gone was already deleted") {
		t.Errorf("delete of a deleted artifact: %s", res)
	}
	for _, args := range [][]string{
		{"artifact", "delete-version", "debian:11", "three"},
		{"artifact", "max-versions", "debian:11", "0"},
		{"artifact", "show"},
		{"artifact", "set-metadata", "debian:11", "k"},
	} {
		if res := r.Run(t, args...); res.Code != cmdutil.ExitUsage {
			t.Errorf("%v: want a usage error: %s", args, res)
		}
	}
}

// share answers the artifact's view (ArtifactShareEndpoint.post returns
// external_view, da448b1a; here sf2024/artifact.json), shown as every
// artifact; delete-metadata's handler returns None (200 null,
// sf2024/handler_none.json): nothing printed. Sharing outside the system
// namespace and an unknown artifact are the server's recorded refusals.
func TestArtifactShareAndDeleteMetadataRecorded(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.ReplyRecorded(t, "POST", "/artifacts/debian:11/share", 200, "sf2024/artifact.json")
	fa.ReplyRecorded(t, "DELETE", "/artifacts/debian:11/metadata/owner", 200, "sf2024/handler_none.json")
	fa.Canned("POST", "/artifacts/mine/share", clitest.RecordedRefusal(t, "sf2024/refusals.json", "403 share outside the system namespace"))
	fa.Canned("DELETE", "/artifacts/nosuch/metadata/owner", clitest.RecordedRefusal(t, "sf2024/refusals.json", "404 artifact not found"))
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "artifact", "share", "debian:11", "-o", "simple"); res.Code != 0 ||
		!strings.Contains(res.Stdout, "source_url\tdebian:11\n") || !strings.Contains(res.Stdout, "shared\tyes\n") || !strings.Contains(res.Stdout, "69ff59a7-f6ac-4f64-a575-bb54a7ee8961") {
		t.Fatal(res)
	}
	if res := r.Run(t, "artifact", "delete-metadata", "debian:11", "owner"); res.Code != 0 || res.Stdout != "" || res.Stderr != "" {
		t.Fatal(res)
	}
	if res := r.Run(t, "artifact", "delete-metadata", "nosuch", "owner"); res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "artifact not found") {
		t.Fatal(res)
	}
	if res := r.Run(t, "artifact", "share", "mine"); res.Code != cmdutil.ExitAuth || !strings.Contains(res.Stderr, "system namespace") {
		t.Fatal(res)
	}
}
