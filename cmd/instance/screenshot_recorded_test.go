package instance_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// recordedScreenshots is a fake 2024 server (its root page, which lists
// instance-screenshot) answering GET /instances/web1/screenshot, the
// blob's view and its bytes as a real node did (sf2024/screenshot.json:
// the blob UUID as a JSON string; sf2024/screenshot_blob.json: its view,
// sha512 still null, mime-type image/png; sf2024/screenshot.png: the
// console libvirt captured, served as text/plain; all from
// client/testdata/sf2024/node/n14-screenshot); GET
// /instances/batch/screenshot with requires_instance_active's recorded 406
// (sf2024/screenshot_not_ready.json). shot replaces the PNG when set.
func recordedScreenshots(t *testing.T, shot []byte) *clitest.Stubs {
	t.Helper()
	const blob = "6bff478b-c845-4637-b1ad-4b98349fa224" // the UUID screenshot.json names
	if shot == nil {
		shot = []byte(clitest.ReadGolden(t, "sf2024/screenshot.png"))
	}
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	fa.Offer("GET", "/instances/web1/screenshot", 200, clitest.ReadGolden(t, "sf2024/screenshot.json"))
	fa.Offer("GET", "/blobs/"+blob, 200, clitest.ReadGolden(t, "sf2024/screenshot_blob.json"))
	fa.ReplyWith("GET", "/blobs/"+blob+"/data", 200, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, string(shot)).Optional()
	fa.Offer("GET", "/instances/batch/screenshot", 406, clitest.ReadGolden(t, "sf2024/screenshot_not_ready.json"))
	return fa
}

func TestScreenshotRecordedAnswers(t *testing.T) {
	shot := []byte(clitest.ReadGolden(t, "sf2024/screenshot.png"))
	r := clitest.AgainstStubs(recordedScreenshots(t, nil))
	dest := filepath.Join(t.TempDir(), "web1.png")
	res := r.Run(t, "instance", "screenshot", "web1", dest)
	if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "(blob 6bff478b-c845-4637-b1ad-4b98349fa224, 1582 bytes)") {
		t.Fatalf("screenshot: %s", res)
	}
	if got, err := os.ReadFile(dest); err != nil || string(got) != string(shot) || len(shot) != 1582 {
		t.Errorf("saved %d bytes (%v), want the blob's %d", len(got), err, len(shot))
	}
}

// An instance that is not created: the server's own text, exit 1 (a 406
// is no missing object, no usage error), and no file at DEST.
func TestScreenshotOfInactiveInstanceGivesTheServersRefusal(t *testing.T) {
	r := clitest.AgainstStubs(recordedScreenshots(t, nil))
	dest := filepath.Join(t.TempDir(), "batch.png")
	res := r.Run(t, "instance", "screenshot", "batch", dest)
	if res.Code != cmdutil.ExitFailure || res.Stdout != "" || !strings.Contains(res.Stderr, "instance 6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01 is not ready (preflight)") {
		t.Fatalf("screenshot of a preflight instance: %s", res)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("a refused screenshot left %s (%v)", dest, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 0 {
		t.Errorf("a refused screenshot left %d files", len(entries))
	}
}
