//go:build unix

package artifact_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 40, item 3 and the "one way to write a file" rule: a download
// "never replaces an existing file without --clobber" (README.md, "Files
// shakectl writes"; docs/sf-client-commands.md) at the instant of the
// final rename, not only at the start: DEST was checked at the start and
// renamed over at the end, so a file that appeared meanwhile was replaced
// and two downloads to one DEST both exited 0.

const (
	claimBlob = "578da8b6-eb98-4e10-bb36-e4d4d763d312"
	claimData = "the artifact's bytes"
)

// claimStubs answers the recorded 2024 artifact (sf2024/artifact.json)
// whose newest version is a blob named blobName, its view and its data,
// as often as asked.
func claimStubs(t *testing.T, blobName string) *clitest.Stubs {
	t.Helper()
	var art map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "sf2024/artifact.json")), &art); err != nil {
		t.Fatal(err)
	}
	art["blob_uuid"] = blobName
	art["blobs"].(map[string]any)["101"] = map[string]any{"uuid": blobName, "size": len(claimData), "depends_on": nil, "reference_count": 1, "instances": []any{}}
	fa := clitest.NewStubs(t)
	fa.ReplyJSON("GET", "/artifacts/img", art).Always()
	view := map[string]any{"uuid": blobName, "state": "created", "size": len(claimData), "sha512": sum512([]byte(claimData))}
	fa.ReplyJSON("GET", "/blobs/"+blobName, view).Always().Optional()
	fa.ReplyWith("GET", "/blobs/"+blobName+"/data", 200, http.Header{"Content-Type": {"application/octet-stream"}}, claimData).Always().Optional()
	return fa
}

// midDownload is a runner against claimStubs whose first blob download
// runs event once its answer has arrived, before its bytes are read.
func midDownload(t *testing.T, event func()) clitest.CmdRun {
	r := clitest.StubsInMemory(claimStubs(t, claimBlob))
	r.Transport = &clitest.OnBlobData{Next: r.Transport, Event: event}
	return r
}

// kept checks a refusal's message and that the bytes downloaded are in the
// file it names, beside DEST.
func kept(t *testing.T, res clitest.RunResult, dest string) {
	t.Helper()
	m := clitest.TakenRE.FindStringSubmatch(res.Stderr)
	if res.Code != cmdutil.ExitFailure || m == nil || m[1] != dest {
		t.Fatalf("want exit 1 and the TakenError for %s:\n%s", dest, res)
	}
	if filepath.Dir(m[2]) != filepath.Dir(dest) {
		t.Errorf("the bytes are kept in %s, not beside %s", m[2], dest)
	}
	if b, err := os.ReadFile(m[2]); err != nil || string(b) != claimData {
		t.Errorf("the file named as keeping the download holds %q (%v)", b, err)
	}
}

func TestDownloadDoesNotReplaceAFileThatAppearsMidDownload(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "disk.qcow2")
	r := midDownload(t, func() { clitest.WriteFile(t, dest, "theirs") })
	res := r.Run(t, "artifact", "download", "img", dest)
	kept(t, res, dest)
	if b, _ := os.ReadFile(dest); string(b) != "theirs" {
		t.Errorf("DEST, which appeared mid-download, now holds %q", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the directory holds %v, want DEST and the kept download", left)
	}
}

// A symbolic link dropped at DEST is neither replaced nor followed: its
// target (missing, or a file) is not written.
func TestDownloadDoesNotReplaceOrFollowASymlinkThatAppearsMidDownload(t *testing.T) {
	for _, victimExists := range []bool{false, true} {
		dir := t.TempDir()
		dest := filepath.Join(dir, "disk.qcow2")
		victim := filepath.Join(t.TempDir(), "victim")
		if victimExists {
			clitest.WriteFile(t, victim, "victim's")
		}
		r := midDownload(t, func() {
			if err := os.Symlink(victim, dest); err != nil {
				t.Error(err)
			}
		})
		res := r.Run(t, "artifact", "download", "img", dest)
		kept(t, res, dest)
		if target, err := os.Readlink(dest); err != nil || target != victim {
			t.Errorf("DEST is no longer the symlink to %s (%q, %v)", victim, target, err)
		}
		b, err := os.ReadFile(victim)
		switch {
		case victimExists && string(b) != "victim's":
			t.Errorf("the symlink was followed: its target holds %q", b)
		case !victimExists && !os.IsNotExist(err):
			t.Errorf("the symlink was followed: its target was created (%v)", err)
		}
	}
}

// With --clobber, what is there at the end is replaced, atomically.
func TestDownloadClobberReplacesAFileThatAppearsMidDownload(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "disk.qcow2")
	r := midDownload(t, func() { clitest.WriteFile(t, dest, "theirs") })
	if res := r.Run(t, "artifact", "download", "img", dest, "--clobber", "--quiet"); res.Code != 0 {
		t.Fatal(res)
	}
	if b, _ := os.ReadFile(dest); string(b) != claimData {
		t.Errorf("DEST holds %q, want the artifact's bytes", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

// Two downloads to one DEST: the second runs whole while the first is
// under way; the second wins, the first fails and keeps its bytes.
func TestTwoDownloadsRacingForOneDestOneWins(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "disk.qcow2")
	var second clitest.RunResult
	var r clitest.CmdRun
	r = midDownload(t, func() { second = r.Run(t, "artifact", "download", "img", dest, "--quiet") })
	first := r.Run(t, "artifact", "download", "img", dest)
	if second.Code != 0 {
		t.Fatalf("the second download: %s", second)
	}
	kept(t, first, dest)
	if b, _ := os.ReadFile(dest); string(b) != claimData {
		t.Errorf("DEST holds %q", b)
	}
}

// The same race, run at once: whichever order the steps interleave in,
// exactly one exits 0, the other fails (exit 1) saying why.
func TestTwoConcurrentDownloadsToOneDestExactlyOneWins(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "disk.qcow2")
	r := clitest.StubsInMemory(claimStubs(t, claimBlob))
	var res [2]clitest.RunResult
	var wg sync.WaitGroup
	for i := range res {
		wg.Go(func() { res[i] = r.Run(t, "artifact", "download", "img", dest, "--quiet") })
	}
	wg.Wait()
	clitest.ExactlyOneWins(t, res[:]...)
	if b, _ := os.ReadFile(dest); string(b) != claimData {
		t.Errorf("DEST holds %q", b)
	}
}

// Issue 40, item 2: the blob UUID an artifact names is the server's, and
// is refused, named safely, before anything is written or fetched, unless
// it is a UUID.
func TestDownloadRefusesABlobNameThatIsNotAUUID(t *testing.T) {
	for _, c := range clitest.HostileBlobNames {
		t.Run(c.Name, func(t *testing.T) {
			root := t.TempDir()
			dest := filepath.Join(root, "a", "b", "c")
			if err := os.MkdirAll(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			before := clitest.Tree(t, root)
			fa := claimStubs(t, c.Value)
			res := clitest.StubsInMemory(fa).Run(t, "artifact", "download", "img", dest)
			want := c.RefusedLine("blob")
			if res.Code != cmdutil.ExitFailure || res.Stderr != want || res.Stdout != "" {
				t.Errorf("got %s\nwant exit 1 and stderr %q", res, want)
			}
			clitest.SameTree(t, root, before)
			if n := fa.Count("GET", "/blobs/"+c.Value+"/data"); n != 0 {
				t.Errorf("the blob's data was fetched %d times", n)
			}
		})
	}
}

// Issue 40, item 12: "-" is stdout for a download, as for --out and
// vdiconsolefile: the bytes alone, and no file named "-".
func TestDownloadDashIsStdout(t *testing.T) {
	r := clitest.StubsInMemory(claimStubs(t, claimBlob)) // before the chdir: it reads testdata
	dir := t.TempDir()
	t.Chdir(dir)
	res := r.Run(t, "artifact", "download", "img", "-")
	if res.Code != 0 || res.Stdout != claimData || res.Stderr != "" {
		t.Errorf("download to -: %s", res)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}
	// Even where a directory is named "-".
	if err := os.Mkdir("-", 0o755); err != nil {
		t.Fatal(err)
	}
	if res := r.Run(t, "artifact", "download", "img", "-"); res.Code != 0 || res.Stdout != claimData {
		t.Errorf("download to - beside a directory named -: %s", res)
	}
	if left, _ := os.ReadDir("-"); len(left) != 0 {
		t.Errorf("wrote %v into the directory named -", left)
	}
	// The result printed on stdout cannot share it with the bytes.
	res = r.Run(t, "artifact", "download", "img", "-", "-o", "json")
	if res.Code != cmdutil.ExitUsage || res.Stdout != "" || !strings.Contains(res.Stderr, "DEST - writes the artifact's bytes to stdout; -o json (or --jq) would print the result there too: give DEST a file name") {
		t.Errorf("download to - with -o json: %s", res)
	}
}
