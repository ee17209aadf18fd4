//go:build unix

package outfile

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// A new file is perm narrowed by the umask, as open(2) makes it, not a fixed
// mode; an existing file keeps its mode and Private is exactly 0600 (issue
// 34, item 13). The umask is the process's, so each case runs in a child
// process of this test binary with a scratch umask.
func TestNewFileFollowsTheUmask(t *testing.T) {
	if dir := os.Getenv("OUTFILE_UMASK_CHILD"); dir != "" {
		syscall.Umask(0o027)
		write := func(name string, perm os.FileMode, private bool) {
			p, err := Check("DEST", filepath.Join(dir, name), perm)
			if err == nil && private {
				p = p.Private()
			}
			if err == nil {
				err = p.Write(context.Background(), nil, nil, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		write("new", 0o666, false)
		write("existing", 0o666, false)
		write("private", 0o666, true)
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "existing"), nil, 0o604); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "existing"), 0o604); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNewFileFollowsTheUmask$")
	cmd.Env = append(os.Environ(), "OUTFILE_UMASK_CHILD="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for name, want := range map[string]os.FileMode{"new": 0o640, "existing": 0o604, "private": 0o600} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, st.Mode().Perm(), err, want)
		}
	}
}
