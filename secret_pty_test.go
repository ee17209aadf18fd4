//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// Issue 34, item 7: a key typed at a terminal is not echoed, whichever
// command reads it. `context create --key-stdin` echoed it (namespace
// add-key did not): one secret reader for both. The key is typed only once
// the prompt is shown, as a person would; the terminal's output must never
// hold it, and the context must.
func TestKeyTypedAtATerminalIsNotEchoed(t *testing.T) {
	const key = "typed-key-Zq8Lw3"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"context create --key-stdin", []string{"context", "create", "lab", "--api-url", "http://127.0.0.1:1/api", "--namespace", "lab", "--key-stdin"}},
		// Refused after the read (no server): the read is what is tested.
		{"namespace add-key", []string{"namespace", "add-key", "lab", "ci"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			cfg := filepath.Join(home, "config.yaml")
			c := exec.Command(os.Args[0], tc.args...)
			c.Env = []string{
				"SHAKECTL_TEST_MAIN=1",
				"HOME=" + home,
				"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
				"SHAKECTL_CONFIG=" + cfg,
				"PATH=" + os.Getenv("PATH"),
				"TERM=xterm",
			}
			if tc.args[0] == "namespace" {
				// A config to read; the server it names is never reached.
				if err := os.WriteFile(cfg, []byte("api-url: http://127.0.0.1:1/api\nnamespace: lab\nkey: unused\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 120})
			if err != nil {
				t.Fatal(err)
			}
			defer tty.Close()
			t.Cleanup(func() { _ = c.Process.Kill() })
			var screen syncbuf.Buffer
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				_, _ = io.Copy(&screen, tty)
			}()
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(screen.String(), "not echoed") && !strings.Contains(screen.String(), "reading the key") {
				if time.Now().After(deadline) {
					t.Fatalf("no prompt for the key within 30 s:\n%q", screen.String())
				}
				time.Sleep(10 * time.Millisecond) // polling the screen, which has no event to wait on
			}
			if _, err := tty.Write([]byte(key + "\n\x04")); err != nil {
				t.Fatal(err)
			}
			waitExit(t, c, 30*time.Second)
			<-copied
			out := screen.String()
			if strings.Contains(out, key) {
				t.Errorf("the key was echoed on the terminal:\n%q", out)
			}
			if tc.args[0] == "context" {
				if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), key) {
					t.Errorf("the context does not hold the key typed; terminal:\n%q", out)
				}
			}
		})
	}
}
