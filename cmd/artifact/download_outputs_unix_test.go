//go:build unix

package artifact_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// Issue 28, item 1, as scripts/hostile.sh found it in artifact download,
// instance download and instance screenshot (one helper, DownloadBlobTo):
// the download was renamed over DEST whatever DEST was, so a symlinked DEST
// became a plain file (its target never updated) and a FIFO's reader got
// nothing (as root, DEST /dev/null became a regular file the same way).
func TestDownloadFollowsSymlinkAndWritesFIFOInPlace(t *testing.T) {
	r, _ := clitest.SimCluster(t, cluster.Generation2026, nil)
	dir := t.TempDir()
	path, data := imageFile(t, dir, 40<<10, 7) // fits a pipe's buffer
	if res := r.Run(t, "artifact", "upload", "img", path, "--quiet"); res.Code != 0 {
		t.Fatal(res)
	}

	target := filepath.Join(dir, "real.img")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.img")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if res := r.Run(t, "artifact", "download", "img", link, "--quiet", "--clobber"); res.Code != 0 {
		t.Fatal(res)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("DEST, a symlink, is no longer one (%v)", err)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, data) {
		t.Errorf("the symlink's target holds %d bytes, want the %d downloaded", len(got), len(data))
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader opened without blocking: the download's open then finds it,
	// and the bytes wait in the pipe's buffer until read below.
	reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if res := r.Run(t, "artifact", "download", "img", fifo, "--quiet"); res.Code != 0 {
		t.Fatal(res)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("DEST, a FIFO, was replaced (%v)", err)
	}
	got, _ := io.ReadAll(reader)
	if !bytes.Equal(got, data) {
		t.Errorf("the FIFO's reader got %d bytes, want %d", len(got), len(data))
	}
}

// An upload of a FIFO is refused at once, not after a writer comes: opening
// it waited for one, deaf to Ctrl-C and SIGTERM (scripts/hostile.sh).
func TestUploadRefusesAFIFOWithoutOpeningIt(t *testing.T) {
	r, _ := clitest.SimCluster(t, cluster.Generation2026, nil)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Without the check, the command waits in open(2): a writer opened
	// here when the test ends lets it go.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	done := make(chan clitest.RunResult, 1)
	go func() { done <- r.Run(t, "artifact", "upload", "img", fifo) }()
	select {
	case res := <-done:
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "not a regular file") {
			t.Fatalf("upload of a FIFO: %s", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the upload of a FIFO is still waiting for a writer")
	}
}
