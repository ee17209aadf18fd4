//go:build unix

package parkingprobe_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/nobodytest"
)

// Issue 28, item 1: "--out RO_DIR/x.json" failed only after the whole
// load ran, and the report was lost. A read-only output directory is a
// usage error (exit 2) naming the flag and "permission denied", for --out
// and --plot, before any request reaches the target. As root, whose writes
// ignore permission bits, the case is made for nobody and the test re-run
// as nobody; the target stays in this process, so its count of requests
// does not depend on the re-run's own word.
func TestReadOnlyOutputDirRefusedBeforeTheLoad(t *testing.T) {
	t.Parallel()
	if arg, child := nobodytest.Arg(); child {
		target, dir, _ := strings.Cut(arg, "\n")
		checkReadOnlyOutputsRefused(t, target, dir)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the read-only case is made on Linux")
	}
	srv, hits := countingTarget(t)
	if os.Geteuid() == 0 {
		s := nobodytest.New(t)
		s.Run(t, srv.URL+"\n"+s.Mkdir(t, "ro", 0o555))
	} else {
		dir := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		if f, err := os.CreateTemp(dir, "probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skip("this user writes into a read-only directory")
		}
		checkReadOnlyOutputsRefused(t, srv.URL, dir)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the target although the output could not be written", n)
	}
}

func checkReadOnlyOutputsRefused(t *testing.T, target, dir string) {
	t.Helper()
	for _, c := range []struct{ flag, file string }{{"--out", "x.json"}, {"--plot", "x.html"}} {
		path := filepath.Join(dir, c.file)
		f, _, errOut := probeTestFactory(t, context.Background())
		code := root.Run(f, []string{"parking-probe", "--target", target, "--requests", "5", "--shed-max", "1h", c.flag, path})
		want := "cannot write " + c.flag + " " + path + ": permission denied"
		if code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), want) {
			t.Errorf("%s %s: exit %d, want %d and %q; stderr:\n%s", c.flag, path, code, cmdutil.ExitUsage, want, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the read-only directory: %v", entries)
	}
}
