//go:build unix

package root_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// A download to a FIFO waits for a reader (it never replaces the FIFO):
// that wait is bounded by --timeout and ends as every wait ends, exit 124
// naming what it waited for. It ended with exit 1, its cause lost in the
// message.
func TestAFIFOWithoutAReaderEndsAtTheDeadlineWith124(t *testing.T) {
	dir := t.TempDir()
	up := filepath.Join(dir, "up.txt")
	clitest.WriteFile(t, up, "data")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		r, _ := clitest.SimClusterInMemory(t, "2026", nil)
		if res := r.Run(t, "artifact", "upload", "img", up, "--quiet"); res.Code != 0 {
			t.Fatal(res)
		}
		start := time.Now()
		res := r.Run(t, "artifact", "download", "img", fifo, "--timeout", "5s")
		stderr := strings.ReplaceAll(res.Stderr, dir, "DIR")
		want := "error: writing DEST DIR/fifo: no reader opened the FIFO: no answer within 5s (--timeout)\nhint: give a longer --timeout\n"
		if res.Code != cmdutil.ExitTimeout || stderr != want {
			t.Errorf("exit %d, want 124\nstderr %q\nwant   %q", res.Code, stderr, want)
		}
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("it ended %s after it started, want at its deadline, 5s", took)
		}
	})
}
