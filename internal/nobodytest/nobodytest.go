// Package nobodytest re-runs a test as the unprivileged user nobody (uid
// and gid 65534), for the cases root cannot make: root's writes ignore
// permission bits, so a read-only directory is writable to it, and the
// usual test container runs as root ("--out RO_DIR/x.json" was once
// refused only after the load, and the test of its fix skipped as root).
//
// The test binary is copied into a scratch directory of mode 0755 that
// nobody can reach (t.TempDir's parents are 0700, and so is the go
// command's build directory), and run again there with
// SysProcAttr.Credential, selecting only the calling test; the re-run
// finds its argument with Arg. Nothing outside the scratch directory is
// touched, and it is removed when the test ends.
package nobodytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// UID and GID are nobody's on Linux distributions.
const UID, GID = 65534, 65534

// argEnv carries the re-run's argument; its presence marks the re-run.
const argEnv = "SHAKECTL_NOBODYTEST_ARG"

// rerunBound ends a re-run that hangs, so a broken case cannot hold the
// package's tests until the go command's ten-minute timeout.
const rerunBound = 2 * time.Minute

// Arg is the argument the parent test gave, and whether this process is
// that re-run (running as nobody).
func Arg() (string, bool) {
	return os.LookupEnv(argEnv)
}

// Scratch is a directory nobody can reach, holding a copy of the test
// binary.
type Scratch struct {
	Dir string
	bin string
}

// New makes the scratch directory and copies the test binary into it. It
// is for root only (the caller runs its case in-process otherwise) and
// skips where there is no Credential to switch to (not Linux).
func New(t *testing.T) *Scratch {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("re-running as nobody needs Linux")
	}
	if os.Geteuid() != 0 {
		t.Fatal("nobodytest.New needs root; run the case in-process instead")
	}
	dir, err := reachableTempDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Scratch{Dir: dir, bin: filepath.Join(dir, "bin", "test.bin")}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Dir(s.bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, s.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

// reachableTempDir makes a directory of mode 0755 in the first temporary
// directory whose every ancestor nobody may search. The candidates are
// where any test makes its temporary files; none of them is changed.
func reachableTempDir() (string, error) {
	var why []string
	for _, base := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if err := searchableByOthers(base); err != nil {
			why = append(why, err.Error())
			continue
		}
		dir, err := os.MkdirTemp(base, "shakectl-nobodytest-")
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		return dir, nil
	}
	return "", fmt.Errorf("no temporary directory nobody can reach: %s", strings.Join(why, "; "))
}

// searchableByOthers checks that dir and each of its parents has the
// search bit for others, as nobody (in no group of theirs) needs.
func searchableByOthers(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for {
		st, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%s is mode %v: others cannot search it", dir, st.Mode().Perm())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

func copyFile(from, to string, perm os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Mkdir makes the directory name in the scratch directory, owned by nobody
// and of mode perm: a read-only directory of the user's own is 0555.
func (s *Scratch) Mkdir(t *testing.T, name string, perm os.FileMode) string {
	t.Helper()
	dir := filepath.Join(s.Dir, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, UID, GID); err != nil {
		t.Fatal(err)
	}
	// Chmod after Mkdir: the umask does not narrow it.
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Run re-runs the calling test, which must be a top-level one, as nobody,
// with arg for Arg. The re-run's failures, or its skipping, fail t with
// its output (t.Errorf: the caller's own checks after it still run). It has a home and a temporary directory of its own in the
// scratch directory, and an environment holding nothing else of the
// parent's but PATH.
func (s *Scratch) Run(t *testing.T, arg string) {
	t.Helper()
	if strings.Contains(t.Name(), "/") {
		t.Fatalf("nobodytest.Run from subtest %s: call it from a top-level test", t.Name())
	}
	home := s.Mkdir(t, "home-"+t.Name(), 0o700)
	tmp := s.Mkdir(t, "tmp-"+t.Name(), 0o700)
	ctx, cancel := context.WithTimeout(t.Context(), rerunBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Dir = home
	cmd.Env = []string{argEnv + "=" + arg, "HOME=" + home, "TMPDIR=" + tmp, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = credential(UID, GID)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		// It never started: a user namespace without uid 65534 mapped,
		// or a seccomp profile that refuses setuid.
		t.Errorf("cannot start the re-run as uid %d: %v", UID, err)
	case err != nil:
		t.Errorf("the re-run as uid %d: %v\n%s", UID, err, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()+" "):
		// A re-run that matched no test, or skipped, exits 0 too.
		t.Errorf("the re-run as uid %d did not pass %s:\n%s", UID, t.Name(), out)
	}
}
