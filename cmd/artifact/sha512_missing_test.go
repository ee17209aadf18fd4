package artifact_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// Issue 40, item 12: a blob the server gives no sha512 (a 2024 server
// computes it later, shakenfist da448b1a blob.py _get_hash; a hostile one
// may leave it out) was accepted with sha512_verified no and nothing on
// stderr. The download goes on (refusing would make every fresh blob
// undownloadable) and stderr says what was not verified, in words and,
// under -o json, as a JSON warning.
func TestDownloadWithoutASHA512Warns(t *testing.T) {
	const blob = "578da8b6-eb98-4e10-bb36-e4d4d763d312"
	for _, view := range []string{
		`{"uuid": "` + blob + `", "state": "created", "size": 5, "sha512": null}`,
		`{"uuid": "` + blob + `", "state": "created", "size": 5}`,
	} {
		fa := clitest.NewStubs(t)
		art := strings.Replace(clitest.ReadGolden(t, "sf2024/artifact.json"), "25adc99e-369b-4959-a387-2ae046ee6ad4", blob, -1)
		art = strings.Replace(art, `"size": 308406784`, `"size": 5`, 1)
		fa.Reply("GET", "/artifacts/img", 200, art)
		fa.Reply("GET", "/blobs/"+blob, 200, view)
		fa.ReplyWith("GET", "/blobs/"+blob+"/data", 200, http.Header{"Content-Type": {"application/octet-stream"}}, "hello")
		dest := filepath.Join(t.TempDir(), "img.qcow2")
		res := clitest.AgainstStubs(fa).Run(t, "artifact", "download", "img", dest, "-o", "simple")
		want := "warning: blob " + blob + " has no sha512 on the server: the 5 bytes written to " + dest + " were checked against its size only\n"
		if res.Code != 0 || res.Stderr != want || !strings.Contains(res.Stdout, "sha512_verified\tno\n") {
			t.Errorf("%s: %s\nwant stderr %q", view, res, want)
		}
		if b, err := os.ReadFile(dest); err != nil || string(b) != "hello" {
			t.Errorf("DEST holds %q (%v)", b, err)
		}
		res = clitest.AgainstStubs(fa).Run(t, "artifact", "download", "img", filepath.Join(t.TempDir(), "x"), "-o", "json")
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.Code != 0 || !strings.HasPrefix(lines[len(lines)-1], `{"warning":"blob `+blob+` has no sha512 on the server`) {
			t.Errorf("-o json: %s", res)
		}
	}
}
