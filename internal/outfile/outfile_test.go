//go:build unix

package outfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/shakenfist/shakectl/internal/nobodytest"
)

// Every test works in t.TempDir(): never on the machine's own files (no
// /dev/null, no /dev/full), as issue 28's first finding was exactly that.

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func mustCheck(t *testing.T, arg string) *Path {
	t.Helper()
	p, err := Check("--out", arg, 0o644)
	if err != nil {
		t.Fatalf("Check(%s): %v", arg, err)
	}
	return p
}

func TestReplacesARegularFileAtomicallyKeepingItsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	p := mustCheck(t, path)
	err := p.Write(context.Background(), nil, nil, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("the writer's error was lost or does not name the flag: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
	var note bytes.Buffer
	if err := p.Write(context.Background(), nil, &note, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("got %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640 kept", st.Mode().Perm())
	}
	if got, want := note.String(), fmt.Sprintf("wrote --out %s, 3 bytes\n", path); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestNewFileGetsTheDefaultMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	p, err := Check("config file", path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(context.Background(), nil, nil, writeString("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestDashIsStdoutNotAFileNamedDash(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	p := mustCheck(t, "-")
	var out, note bytes.Buffer
	if err := p.Write(context.Background(), &out, &note, writeString("{}\n")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{}\n" {
		t.Errorf("stdout %q", out.String())
	}
	if _, err := os.Lstat(filepath.Join(dir, "-")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file named - was written: %v", err)
	}
	if note.Len() != 0 {
		t.Errorf("stdout's data needs no note: %q", note.String())
	}
}

func TestSymlinkIsFollowedAndStaysALink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "dotfiles")
	if err := os.Mkdir(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(realDir, "config.yaml")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink("dotfiles/config.yaml", link); err != nil {
		t.Fatal(err)
	}
	var note bytes.Buffer
	if err := mustCheck(t, link).Write(context.Background(), nil, &note, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the linked file holds %q", b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("the linked file's mode became %v", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(realDir); len(entries) != 1 {
		t.Errorf("left behind in the target's directory: %v", entries)
	}
	if !strings.Contains(note.String(), real) {
		t.Errorf("the note does not say which file was written: %q", note.String())
	}
}

func TestDanglingSymlinkCreatesItsTarget(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "new.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := mustCheck(t, link).Write(context.Background(), nil, nil, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "x" {
		t.Errorf("target holds %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

func TestSymlinkLoopIsRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if _, err := Check("--out", a, 0o644); err == nil {
		t.Error("a link loop was accepted")
	}
}

func TestFIFOIsWrittenInPlace(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := mustCheck(t, fifo)
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens it
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := p.Write(context.Background(), nil, nil, writeString("report")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "report" {
		t.Errorf("reader got %q", s)
	}
	st, err := os.Lstat(fifo)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
}

func TestFIFOWithoutReaderStopsOnCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "nobody-reads")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := mustCheck(t, fifo)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Without the non-blocking open this would hang in open(2) for ever.
	err := p.Write(ctx, nil, nil, writeString("lost"))
	if err == nil || !strings.Contains(err.Error(), "no reader") {
		t.Errorf("want a no-reader error, got %v", err)
	}
}

// A symlink to a FIFO (as /dev/stdout is a link to a pipe) is written
// through, never replaced by a file.
func TestSymlinkToFIFOIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "stdout")
	os.Symlink(fifo, link)
	got := make(chan string, 1)
	go func() {
		f, _ := os.Open(fifo)
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := mustCheck(t, link).Write(context.Background(), nil, nil, writeString("via link")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "via link" {
		t.Errorf("reader got %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

// /dev/stdout redirected to a file is /proc/self/fd/1, a link to this
// process's own open file: it is appended to, so what the command printed
// before stays, and the file is not swapped under the shell's descriptor.
func TestProcFdLinkToARegularFileIsAppendedInPlace(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "redirected")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "text report\n")
	before, _ := os.Stat(path)
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), link); err != nil {
		t.Fatal(err)
	}
	if err := mustCheck(t, link).Write(context.Background(), nil, nil, writeString("{}\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "text report\n{}\n" {
		t.Errorf("file holds %q", b)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Error("the file was replaced, not written in place")
	}
}

func TestRefusedBeforeAnyWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ name, arg, want string }{
		{"directory", dir, "is a directory"},
		{"missing parent", filepath.Join(dir, "no", "such", "x.json"), "no such file or directory"},
		{"parent is a file", filepath.Join(file, "x.json"), "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check("--out", c.arg, 0o644)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--out "+c.arg) {
				t.Errorf("error %q: want it to name --out, the path and %q", err, c.want)
			}
		})
	}
}

// A directory that refuses new files is refused by Check, before any
// write; the probing file that Check creates is what catches it. Root's
// writes ignore permission bits, so as root (the usual test container)
// the case is made for nobody and the test re-run as nobody
// (internal/nobodytest); as anyone else it runs here.
func TestReadOnlyDirectoryIsRefusedBeforeAnyWrite(t *testing.T) {
	if dir, child := nobodytest.Arg(); child {
		checkReadOnlyRefused(t, dir)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the read-only case is made on Linux")
	}
	if os.Geteuid() == 0 {
		s := nobodytest.New(t)
		s.Run(t, s.Mkdir(t, "ro", 0o555))
		return
	}
	dir := readOnlyDir(t)
	checkReadOnlyRefused(t, dir)
}

// readOnlyDir makes a read-only directory of the user's own, and skips
// when this user writes into it anyway (a capability such as
// CAP_DAC_OVERRIDE without being root).
func readOnlyDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if f, err := os.CreateTemp(dir, "probe-"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("this user writes into a read-only directory")
	}
	return dir
}

func checkReadOnlyRefused(t *testing.T, dir string) {
	t.Helper()
	arg := filepath.Join(dir, "x.json")
	_, err := Check("--out", arg, 0o644)
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "--out "+arg) {
		t.Errorf("want the flag, the path and permission denied, got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the read-only directory: %v", entries)
	}
}

// The check leaves nothing behind in the directory it tried.
func TestCheckLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	mustCheck(t, filepath.Join(dir, "later.json"))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestEmptyArgIsNoOutput(t *testing.T) {
	p, err := Check("--out", "", 0o644)
	if p != nil || err != nil {
		t.Errorf("got %v, %v", p, err)
	}
}
