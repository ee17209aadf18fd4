package backup_test

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

const (
	newest    = "25adc99e-369b-4959-a387-2ae046ee6ad4"
	blobBytes = "the newest version's bytes"
)

// namedStubs is backupStubs (the recorded 2024 artifact and blob, its
// sha512 the data's) with the newest version's blob named name, in the blob list (inList) or in
// the artifact's versions, and every answer given as often as asked.
func namedStubs(t *testing.T, name string, inList bool) *clitest.Stubs {
	t.Helper()
	var art, blob map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/artifact.json")), &art); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/blob.json")), &blob); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512([]byte(blobBytes))
	blob["uuid"], blob["size"], blob["sha512"] = newest, len(blobBytes), hex.EncodeToString(sum[:])
	if inList {
		blob["uuid"] = name
	} else {
		art["blobs"].(map[string]any)["101"].(map[string]any)["uuid"] = name
		art["blob_uuid"] = name
	}
	s := clitest.NewStubs(t)
	s.ReplyJSON("GET", "/artifacts", []any{art}).Always()
	s.ReplyJSON("GET", "/blobs", []any{blob}).Always()
	s.Reply("GET", "/blobs/"+name+"/data", 200, blobBytes).Always().Optional()
	s.Reply("GET", "/blobs/"+newest+"/data", 200, blobBytes).Always().Optional()
	return s
}

// Issue 40, item 2: a GET /blobs entry named "../../PWNED1" made `backup
// create sub/summary.json` write ./PWNED1 and exit 0. A blob name that is
// not a UUID, in the blob list or in an artifact's versions, is refused
// (exit 1), named safely, before anything is written anywhere: the
// scratch tree (DEST three levels down, so even "../../.." stays inside
// it on the code before) is as it was.
func TestBackupRefusesABlobNameThatIsNotAUUID(t *testing.T) {
	for _, where := range []string{"blob-list", "artifact-version"} {
		for _, c := range clitest.HostileBlobNames {
			t.Run(where+"/"+c.Name, func(t *testing.T) {
				root := t.TempDir()
				sub := filepath.Join(root, "a", "b", "c", "sub")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				before := clitest.Tree(t, root)
				fa := namedStubs(t, c.Value, where == "blob-list")
				res := clitest.StubsInMemory(fa).Run(t, "backup", "create", filepath.Join(sub, "summary.json"))
				want := c.RefusedLine("blob")
				if res.Code != cmdutil.ExitFailure || res.Stderr != want || res.Stdout != "" {
					t.Errorf("got %s\nwant exit 1 and stderr %q", res, want)
				}
				clitest.SameTree(t, root, before)
				for _, r := range fa.Requests() {
					if strings.HasSuffix(r.Path, "/data") {
						t.Errorf("fetched %q", r.Path)
					}
				}
			})
		}
	}
}

// Two backups to one DEST, the second run whole while the first fetches
// its blob: the second wins; the first fails (exit 1) at the blob file the
// second wrote, which it does not replace, and says where its own copy is.
func TestTwoBackupsRacingForOneDestOneWins(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "summary.json")
	var second clitest.RunResult
	r := clitest.StubsInMemory(namedStubs(t, newest, true))
	run := r
	r.Transport = &clitest.OnBlobData{Next: r.Transport, Event: func() { second = run.Run(t, "backup", "create", dest, "--quiet") }}
	first := r.Run(t, "backup", "create", dest)
	if second.Code != 0 {
		t.Fatalf("the second backup: %s", second)
	}
	blobFile := filepath.Join(dir, "blobs", newest)
	m := clitest.TakenRE.FindStringSubmatch(first.Stderr)
	if first.Code != cmdutil.ExitFailure || m == nil || m[1] != blobFile {
		t.Fatalf("the first backup: %s\nwant exit 1 and the blob file %s refused", first, blobFile)
	}
	if b, _ := os.ReadFile(m[2]); string(b) != blobBytes {
		t.Errorf("the first backup's copy %s holds %q", m[2], b)
	}
	if b, _ := os.ReadFile(blobFile); string(b) != blobBytes {
		t.Errorf("the blob file holds %q", b)
	}
	var index map[string]json.RawMessage
	if raw, _ := os.ReadFile(dest); json.Unmarshal(raw, &index) != nil || len(index) != 2 {
		t.Errorf("DEST is not the second backup's index: %s", raw)
	}
}

// The same, at once: exactly one backup exits 0 whatever the interleaving
// (the blob file or DEST taken, or DEST there from the start).
func TestTwoConcurrentBackupsExactlyOneWins(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "summary.json")
	r := clitest.StubsInMemory(namedStubs(t, newest, true))
	var res [2]clitest.RunResult
	var wg sync.WaitGroup
	for i := range res {
		wg.Go(func() { res[i] = r.Run(t, "backup", "create", dest, "--quiet") })
	}
	wg.Wait()
	clitest.ExactlyOneWins(t, res[:]...)
}

// A file dropped at DEST while the blobs are fetched is not replaced: the
// backup fails and keeps its index beside it. With --clobber it is.
func TestBackupDoesNotReplaceADestThatAppearsMidBackup(t *testing.T) {
	for _, clobber := range []bool{false, true} {
		dir := t.TempDir()
		dest := filepath.Join(dir, "summary.json")
		r := clitest.StubsInMemory(namedStubs(t, newest, true))
		r.Transport = &clitest.OnBlobData{Next: r.Transport, Event: func() { clitest.WriteFile(t, dest, "theirs") }}
		args := []string{"backup", "create", dest, "--quiet"}
		if clobber {
			args = append(args, "--clobber")
		}
		res := r.Run(t, args...)
		got, _ := os.ReadFile(dest)
		if clobber {
			if res.Code != 0 || !strings.Contains(string(got), newest) {
				t.Errorf("--clobber: %s\nDEST holds %q", res, got)
			}
			continue
		}
		m := clitest.TakenRE.FindStringSubmatch(res.Stderr)
		if res.Code != cmdutil.ExitFailure || m == nil || m[1] != dest || string(got) != "theirs" {
			t.Fatalf("got %s\nDEST holds %q", res, got)
		}
		if b, _ := os.ReadFile(m[2]); !strings.Contains(string(b), newest) {
			t.Errorf("the index kept in %s is %q", m[2], b)
		}
	}
}

// Neither DEST nor --blobs-dir can be stdout: the blobs are files.
func TestBackupRefusesDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	run := clitest.CmdRun{Url: "http://127.0.0.1:1"}
	for _, args := range [][]string{{"-"}, {"summary.json", "--blobs-dir", "-"}} {
		res := run.Run(t, append([]string{"backup", "create"}, args...)...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "stdout cannot hold") && !strings.Contains(res.Stderr, "the blobs go beside it") {
			t.Errorf("backup create %v: %s", args, res)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}
}
