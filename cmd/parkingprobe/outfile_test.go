//go:build unix

package parkingprobe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// Issue 28, item 1: an output that cannot be written is refused before any
// load is sent (the report of a minutes-long run was lost after it), for
// --out and --plot of a run and of merge.
func TestOutputPathsRefusedBeforeTheLoad(t *testing.T) {
	t.Parallel()
	srv, hits := countingTarget(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", dir}, "cannot write --out " + dir + ": is a directory"},
		{[]string{"--out", filepath.Join(dir, "no", "x.json")}, "no such file or directory"},
		{[]string{"--out", filepath.Join(file, "x.json")}, "not a directory"},
		{[]string{"--plot", filepath.Join(dir, "nodir", "p.html")}, "cannot write --plot"},
	} {
		f, _, errOut := probeTestFactory(t, context.Background())
		args := append([]string{"parking-probe", "--target", srv.URL, "--requests", "5", "--shed-max", "1h"}, c.args...)
		if code := root.Run(f, args); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %s", c.args, code, errOut)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent although the output could not be written", n)
	}
}

// --out - is stdout, not a file named "-"; stdout then holds the JSON
// report alone, once, whatever -o says (issue 34, item 11: the table and
// the JSON both went to stdout, the JSON twice with -o json); the text
// report goes to stderr, and -o yaml, which cannot share stdout, is
// refused before any load.
func TestOutDashIsStdout(t *testing.T) {
	srv, hits := countingTarget(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct {
		args     []string
		inStderr string
	}{
		{[]string{"--quiet"}, ""},
		{nil, "checks:"},
		{[]string{"-o", "json"}, ""},
	} {
		f, out, errOut := probeTestFactory(t, context.Background())
		args := append([]string{"parking-probe", "--target", srv.URL, "--requests", "3", "--shed-max", "1h", "--out", "-"}, c.args...)
		if code := root.Run(f, args); code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d, %s", c.args, code, errOut)
		}
		if _, err := os.Lstat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
			t.Errorf("a file named - was written (%v)", err)
		}
		var doc map[string]any
		dec := json.NewDecoder(strings.NewReader(out.String()))
		if err := dec.Decode(&doc); err != nil || doc["requests"] != 3.0 {
			t.Errorf("%v: stdout is not the JSON report: %v\n%s", c.args, err, out)
		}
		if dec.More() {
			t.Errorf("%v: stdout holds more than one JSON report:\n%s", c.args, out)
		}
		if c.inStderr != "" && !strings.Contains(errOut.String(), c.inStderr) {
			t.Errorf("%v: the text report is not on stderr: %q", c.args, errOut)
		}
	}
	before := hits.Load()
	f, _, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--out", "-", "-o", "yaml"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "-o yaml cannot share it") {
		t.Errorf("-o yaml --out -: exit %d, %s", code, errOut)
	}
	if hits.Load() != before {
		t.Error("-o yaml --out - sent load before refusing")
	}
}

// A FIFO named by --out is written in place (a rename over it, as root,
// turned /dev/null into a regular file), and a symlinked --out stays a link.
func TestOutFIFOAndSymlink(t *testing.T) {
	t.Parallel()
	srv, _ := countingTarget(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got <- b
	}()
	f, _, errOut := probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--shed-max", "1h", "--out", fifo}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	if b := <-got; !bytes.Contains(b, []byte(`"requests": 3`)) {
		t.Errorf("the FIFO's reader got %q", b)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced (%v)", err)
	}
	if n := strings.Count(errOut.String(), "wrote --out "); n != 1 {
		t.Errorf("want one line saying the file was written, stderr %q", errOut)
	}

	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink(real, link)
	f, _, errOut = probeTestFactory(t, context.Background())
	if code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--shed-max", "1h", "--out", link}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link became a file")
	}
	if b, _ := os.ReadFile(real); !bytes.Contains(b, []byte(`"requests": 3`)) {
		t.Errorf("the linked file holds %q", b)
	}
}
