package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shakenfist/shakectl/sim/cluster"
)

// transferSim serves a simulated cluster on loopback and writes a file of
// size bytes to upload; it returns the environment that points shakectl at
// the cluster and the file's path.
func transferSim(t *testing.T, size int64) ([]string, string) {
	t.Helper()
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	sim, err := cluster.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	path := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the bytes are zeros, the checksum and the transfer are real.
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	home := t.TempDir()
	env := []string{
		"SHAKECTL_TEST_MAIN=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm",
		"SHAKENFIST_API_URL=" + sim.URL(),
		"SHAKENFIST_NAMESPACE=" + cfg.AuthNamespace,
		"SHAKENFIST_KEY=" + cfg.AuthKey,
	}
	return env, path
}

// barLine is the upload bar while it runs: bytes of the total, percent,
// the cells, the rate and the time left (internal/progress).
var barLine = regexp.MustCompile(`\rupload \S+disk\.img  [0-9.]+ [KM]iB / 16\.0 MiB +[0-9]+% \[=* *\]  [0-9.]+ [KMG]?i?B/s  [0-9hms]+ left\x1b\[K`)

// TestUploadProgressBarOnTerminal runs `artifact upload` with its stdout
// and stderr on a real pseudo-terminal, as a person at a shell sees it,
// and checks the bar is drawn there: bytes, rate and time left, redrawn in
// place, ending at 100%.
func TestUploadProgressBarOnTerminal(t *testing.T) {
	t.Parallel() // a child process and a simulator of its own, 16 MiB through each
	env, path := transferSim(t, 16<<20)
	c := exec.Command(os.Args[0], "artifact", "upload", "ci-image", path)
	c.Env = env
	tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	t.Cleanup(func() { _ = c.Process.Kill() })
	var screen bytes.Buffer
	read := make(chan error, 1)
	// The terminal's output, until the child's end closes it (EIO on Linux).
	go func() {
		_, err := io.Copy(&screen, tty)
		read <- err
	}()
	code := waitExit(t, c, 60*time.Second)
	select {
	case err := <-read:
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Fatalf("reading the terminal: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal was not closed after shakectl exited")
	}
	out := screen.String()
	if code != 0 {
		t.Fatalf("artifact upload exited %d on a terminal:\n%q", code, out)
	}
	if !barLine.MatchString(out) {
		t.Errorf("no running upload bar (bytes / total, percent, rate, time left) on the terminal:\n%q", out)
	}
	if !strings.Contains(out, "/ 16.0 MiB 100% [====================]") {
		t.Errorf("the bar did not end at 100%% of 16.0 MiB:\n%q", out)
	}
	if !strings.Contains(out, "\rchecksum ") {
		t.Errorf("no checksum bar before the upload:\n%q", out)
	}
	// The artifact itself is still printed, after the bar's line.
	if _, after, _ := strings.Cut(out, "100% [====================]"); !strings.Contains(after, "ci-image\r\n") {
		t.Errorf("the artifact was not printed after the bar:\n%q", out)
	}
}

// TestUploadProgressNothingWhenPiped: the same upload with stderr and
// stdout piped draws no bar at all, so logs stay clean.
func TestUploadProgressNothingWhenPiped(t *testing.T) {
	t.Parallel() // a child process and a simulator of its own, 16 MiB through each
	env, path := transferSim(t, 16<<20)
	c := exec.Command(os.Args[0], "artifact", "upload", "ci-image", path)
	c.Env = env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	if code := waitExit(t, c, 60*time.Second); code != 0 {
		t.Fatalf("artifact upload exited %d piped; stderr: %s", code, &stderr)
	}
	for _, s := range []string{stdout.String(), stderr.String()} {
		if strings.ContainsAny(s, "\r\x1b") || strings.Contains(s, " left") || strings.Contains(s, "B/s") || strings.Contains(s, "%") {
			t.Errorf("piped output holds progress:\n%q", s)
		}
	}
	if !strings.Contains(stdout.String(), "ci-image") {
		t.Errorf("the artifact was not printed: %q", stdout.String())
	}
}
