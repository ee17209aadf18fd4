package instance_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// getFileStubs answers the recorded get-file operation (sf2024: queued,
// then complete), its content_blob replaced by contentBlob (a JSON value;
// "" keeps the recorded one), and the recorded blob's view and data.
func getFileStubs(t *testing.T, contentBlob string) *clitest.Stubs {
	t.Helper()
	queued := clitest.ReadGolden(t, "sf2024/agentop_get_queued.json")
	complete := clitest.ReadGolden(t, "sf2024/agentop_get_complete.json")
	var op struct{ UUID string }
	var done struct {
		Results map[string]struct {
			ContentBlob string `json:"content_blob"`
		}
	}
	if err := json.Unmarshal([]byte(queued), &op); err != nil || op.UUID == "" {
		t.Fatalf("agentop_get_queued.json: %v", err)
	}
	if err := json.Unmarshal([]byte(complete), &done); err != nil || done.Results["0"].ContentBlob == "" {
		t.Fatalf("agentop_get_complete.json: %v", err)
	}
	blob := "/blobs/" + done.Results["0"].ContentBlob
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/instances/web1/agent/get", 200, queued)
	if contentBlob != "" {
		complete = strings.Replace(complete, `"`+done.Results["0"].ContentBlob+`"`, contentBlob, 1)
	}
	fa.Reply("GET", "/agentoperations/"+op.UUID, 200, complete)
	fa.ReplyRecorded(t, "GET", blob, 200, "sf2024/agent_get_blob.json").Optional()
	fa.Reply("GET", blob+"/data", 200, clitest.ReadGolden(t, "sf2024/agent_get_file.data")).Optional()
	return fa
}

// Issue 40, item 12: `instance download … -` created a file named "-"
// where --out - and vdiconsolefile - mean stdout. "-" is stdout: the file's
// bytes alone, no line about where it went, no file. (The recorded blob
// has no sha512 yet: the one line on stderr says so, naming stdout.)
func TestDownloadDashIsStdout(t *testing.T) {
	fa := getFileStubs(t, "") // the recorded content_blob
	data := clitest.ReadGolden(t, "sf2024/agent_get_file.data")
	var blob struct {
		UUID   string
		SHA512 *string
	}
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/agent_get_blob.json")), &blob); err != nil || blob.SHA512 != nil {
		t.Fatalf("agent_get_blob.json: %v, sha512 %v", err, blob.SHA512)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "download", "web1", "/var/log/test.log", "-", "--poll", "1ms")
	warn := fmt.Sprintf("warning: blob %s has no sha512 on the server: the %d bytes written to stdout were checked against its size only\n", blob.UUID, len(data))
	if res.Code != 0 || res.Stdout != data || res.Stderr != warn {
		t.Errorf("download to -: %s\nwant the file's %d bytes on stdout alone, and on stderr %q", res, len(data), warn)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}
}

// The blob the agent names is the server's name: one that is not a UUID
// is refused before it is fetched or anything written.
func TestDownloadRefusesAContentBlobThatIsNotAUUID(t *testing.T) {
	fa := getFileStubs(t, `"../../PWNED1"`)
	root := t.TempDir()
	dest := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	before := clitest.Tree(t, root)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "download", "web1", "/var/log/test.log", dest, "--poll", "1ms")
	want := "error: the server sent blob name \"../../PWNED1\", which is not used as a file name: it holds a path separator\n"
	if res.Code != cmdutil.ExitFailure || res.Stderr != want {
		t.Errorf("got %s\nwant stderr %q", res, want)
	}
	clitest.SameTree(t, root, before)
}
