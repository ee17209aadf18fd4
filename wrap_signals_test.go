//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// wrapCounting is `shakectl wrap -- <a command that counts SIGINTs>`,
// with an upstream nobody is asked (the command makes no request).
func wrapCounting(t *testing.T) *exec.Cmd {
	t.Helper()
	home := t.TempDir()
	c := exec.Command(os.Args[0], "wrap", "--", os.Args[0], countSignalsArg)
	c.Env = []string{
		"SHAKECTL_TEST_MAIN=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + os.Getenv("PATH"),
		"SHAKENFIST_API_URL=http://127.0.0.1:1/api",
	}
	return c
}

// lines copies r into out and tells each line's arrival on a channel.
func lines(r io.Reader, out *syncbuf.Buffer) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l := strings.TrimRight(sc.Text(), "\r")
			out.Write([]byte(l + "\n"))
			ch <- l
		}
	}()
	return ch
}

// await waits for a line holding want, failing the test after a bound far
// above what it needs (a hang, not a slow machine).
func await(t *testing.T, ch <-chan string, want string, all *syncbuf.Buffer) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before %q:\n%s", want, all)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within 30 s:\n%s", want, all)
		}
	}
}

// Issue 34, item 1: on a terminal, one Ctrl-C reaches the wrapped command
// once. The command is in the terminal's foreground process group with
// wrap, so the terminal gives it the SIGINT itself; wrap relayed it as
// well ("child got SIGINT #2"), which Terraform takes as a second
// interrupt and exits at once. The SIGTERM sent to wrap afterwards, which
// no terminal sends, is relayed (the command prints its count and exits),
// and comes after any relayed SIGINT: the count it prints is final.
func TestWrapRelaysCtrlCOnceOnATerminal(t *testing.T) {
	c := wrapCounting(t)
	tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	t.Cleanup(func() { _ = c.Process.Kill() })
	var all syncbuf.Buffer
	ch := lines(tty, &all)
	await(t, ch, "ready", &all)
	if _, err := tty.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	await(t, ch, "child got SIGINT #1", &all)
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	await(t, ch, "child: ", &all)
	if code := waitExit(t, c, 30*time.Second); code != 0 {
		t.Errorf("wrap exited %d, want the command's 0:\n%s", code, &all)
	}
	if out := all.String(); strings.Contains(out, "SIGINT #2") || !strings.Contains(out, "child: 1 SIGINT") {
		t.Errorf("one Ctrl-C did not reach the command exactly once:\n%s", out)
	}
}

// Without a terminal (CI, a script's `kill -INT`), the SIGINT that
// reaches wrap reaches the command only through wrap: it is relayed, once.
func TestWrapRelaysASignalSentToItOnce(t *testing.T) {
	c := wrapCounting(t)
	// A session of its own: no controlling terminal, whatever runs go test.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = io.Discard
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	var all syncbuf.Buffer
	ch := lines(stdout, &all)
	await(t, ch, "ready", &all)
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	await(t, ch, "child got SIGINT #1", &all)
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	await(t, ch, "child: ", &all)
	if code := waitExit(t, c, 30*time.Second); code != 0 {
		t.Errorf("wrap exited %d, want the command's 0:\n%s", code, &all)
	}
	if out := all.String(); !strings.Contains(out, "child: 1 SIGINT") {
		t.Errorf("the SIGINT sent to wrap did not reach the command exactly once:\n%s", out)
	}
}
