//go:build unix

package parkingprobe_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// Issue 28, "never exceeds a few hundred MiB": merge read a report file
// up to 256 MiB before report.Read refused anything over 16 MiB, so
// "merge /dev/zero" held 1 GB. A FIFO in a temporary directory stands for
// /dev/zero; its writer counts what merge took before refusing it.
func TestMergeReadsNoMoreThanOneReport(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "endless.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	written := make(chan int64, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			written <- -1
			return
		}
		defer w.Close()
		chunk := make([]byte, 1<<20)
		var n int64
		// Bounded, so a merge that reads on ends too: 300 MiB at most.
		for n < 300<<20 {
			k, err := w.Write(chunk)
			n += int64(k)
			if err != nil {
				break // merge closed its end: EPIPE
			}
		}
		written <- n
	}()
	f, _, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "merge", fifo}); code != cmdutil.ExitUsage {
		t.Errorf("exit %d, want 2; stderr %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "larger than 16 MiB") {
		t.Errorf("the refusal names no bound: %s", errOut)
	}
	// 16 MiB and the bytes the pipe and the last write held.
	if n := <-written; n > 18<<20 {
		t.Errorf("merge took %d MiB of an endless file before refusing it, want at most one report's 16 MiB", n>>20)
	}
}
