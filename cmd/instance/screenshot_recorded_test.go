package instance_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// recordedScreenshots is a fake 2024 server (its root page, which lists
// instance-screenshot) answering GET /instances/web1/screenshot with the
// recorded blob UUID (sf2024/screenshot.json: a JSON string, shakenfist
// da448b1a InstanceScreenshotEndpoint.get) and that blob's view and
// bytes; GET /instances/batch/screenshot with requires_instance_active's
// recorded 406 (sf2024/screenshot_not_ready.json).
func recordedScreenshots(t *testing.T, shot []byte) *clitest.Stubs {
	t.Helper()
	const blob = "3e8b1c2a-7d4f-4a61-9c0e-5b2f8d1a6e47" // the UUID screenshot.json names
	var view map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/blob.json")), &view); err != nil {
		t.Fatal(err)
	}
	view["uuid"], view["size"], view["sha512"] = blob, len(shot), nil // not yet checksummed
	v, _ := json.Marshal(view)
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	fa.Offer("GET", "/instances/web1/screenshot", 200, clitest.ReadGolden(t, "sf2024/screenshot.json"))
	fa.Offer("GET", "/blobs/"+blob, 200, string(v))
	fa.ReplyWith("GET", "/blobs/"+blob+"/data", 200, http.Header{"Content-Type": {"text/plain"}}, string(shot)).Optional()
	fa.Offer("GET", "/instances/batch/screenshot", 406, clitest.ReadGolden(t, "sf2024/screenshot_not_ready.json"))
	return fa
}

func TestScreenshotRecordedAnswers(t *testing.T) {
	shot := []byte("\x89PNG\r\n\x1a\nthe console as libvirt captured it")
	r := clitest.AgainstStubs(recordedScreenshots(t, shot))
	dest := filepath.Join(t.TempDir(), "web1.png")
	res := r.Run(t, "instance", "screenshot", "web1", dest)
	if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "(blob 3e8b1c2a-7d4f-4a61-9c0e-5b2f8d1a6e47, ") {
		t.Fatalf("screenshot: %s", res)
	}
	if got, err := os.ReadFile(dest); err != nil || string(got) != string(shot) {
		t.Errorf("saved %q (%v), want the blob's bytes", got, err)
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
