package backup_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// backupStubs answers GET /artifacts with the 2024 source's artifact
// (sf2024/artifact.json: three versions) and GET /blobs with its blob
// view (sf2024/blob.json) made the artifact's newest version, with data
// bytes of its size and no checksum yet; the other two versions' blobs
// are not in the blob list.
func backupStubs(t *testing.T, data string) *clitest.Stubs {
	t.Helper()
	const newest = "25adc99e-369b-4959-a387-2ae046ee6ad4"
	var blob map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/blob.json")), &blob); err != nil {
		t.Fatal(err)
	}
	blob["uuid"], blob["size"], blob["sha512"] = newest, len(data), nil
	s := clitest.NewStubs(t)
	s.Reply("GET", "/artifacts", 200, "["+clitest.ReadGolden(t, "sf2024/artifact.json")+"]")
	s.ReplyJSON("GET", "/blobs", []any{blob})
	s.Reply("GET", "/blobs/"+newest+"/data", 200, data).Optional()
	return s
}

func TestBackupCreateRecorded(t *testing.T) {
	dir := t.TempDir()
	res := clitest.AgainstStubs(backupStubs(t, "the newest version's bytes")).Run(t, "backup", "create", dir, "-o", "json")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || got["downloaded"] != 1.0 || got["skipped"] != 2.0 || got["artifacts"] != 1.0 || got["blobs"] != 3.0 {
		t.Errorf("result %s (%v)", res.Stdout, err)
	}
	if !strings.Contains(res.Stderr, "is not in the blob list: not copied") {
		t.Errorf("skipped blobs not said: %q", res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "blobs", "25adc99e-369b-4959-a387-2ae046ee6ad4")); err != nil || string(b) != "the newest version's bytes" {
		t.Errorf("blob file %q (%v)", b, err)
	}
	var index struct {
		Artifacts map[string]json.RawMessage `json:"artifacts"`
		Blobs     map[string]json.RawMessage `json:"blobs"`
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(raw, &index); err != nil || len(index.Artifacts) != 1 || len(index.Blobs) != 3 || string(index.Blobs["6c72c98e-e579-48c0-afd5-e1d02a834b99"]) != "null" {
		t.Errorf("index %s (%v)", raw, err)
	}
}

// A file under a blob's name that is not that blob (another size) stops
// the backup rather than being kept or replaced; nothing is fetched and no
// index is written.
func TestBackupCreateRefusesAForeignBlobFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "blobs", "25adc99e-369b-4959-a387-2ae046ee6ad4")
	if err := os.WriteFile(path, []byte("something else"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := backupStubs(t, "the newest version's bytes")
	res := clitest.AgainstStubs(s).Run(t, "backup", "create", dir)
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "is there but is not blob") {
		t.Fatal(res)
	}
	if b, _ := os.ReadFile(path); string(b) != "something else" {
		t.Errorf("the foreign file was replaced: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); !os.IsNotExist(err) {
		t.Errorf("an index was written (%v)", err)
	}
}
