package context_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 28, item 3: context create accepted a 16 MB key of NUL bytes, an
// empty key, an ftp:// URL and names holding a newline or "../". Each is a
// usage error now, and nothing is saved.
func TestContextCreateRefusesHostileInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"NUL key", []string{"a", "--api-url", "http://sf/api", "--key-stdin"}, strings.Repeat("\x00", 16<<20), "--key-stdin from standard input is larger than 4 KiB"},
		{"NUL in a short key", []string{"a", "--api-url", "http://sf/api", "--key-stdin"}, "ab\x00cd", "holds a NUL byte"},
		{"empty key", []string{"a", "--api-url", "http://sf/api", "--key-stdin"}, "\n", "invalid key from --key-stdin: it is empty"},
		{"two-line key", []string{"a", "--api-url", "http://sf/api", "--key-stdin"}, "one\ntwo\n", "more than one line"},
		{"ftp URL", []string{"a", "--api-url", "ftp://sf/api"}, "", "want http:// or https://"},
		{"URL with a newline", []string{"a", "--api-url", "http://sf/api\nevil"}, "", "control characters"},
		{"name with a newline", []string{"a\nb", "--api-url", "http://sf/api"}, "", "invalid context name"},
		{"name with ../", []string{"../etc", "--api-url", "http://sf/api"}, "", "invalid context name"},
		{"name with ..", []string{"a..b", "--api-url", "http://sf/api"}, "", `".." is not allowed`},
	} {
		r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}, Stdin: c.stdin}
		res := r.Run(t, append([]string{"context", "create"}, c.args...)...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", c.name, res.Code, res.Stderr, c.want)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("%s: the config file was written (%v)", c.name, err)
		}
	}
	// The key is trimmed.
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}, Stdin: "  k3y \n"}
	if res := r.Run(t, "context", "create", "ok", "--api-url", "https://sf.example/api", "--key-stdin"); res.Code != 0 {
		t.Fatal(res)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "key: k3y\n") {
		t.Errorf("config:\n%s", b)
	}
}

// Ctrl-C while the key is being read, then Ctrl-D: nothing is saved and the
// exit is 130, not a saved context without a key and exit 0.
func TestContextCreateInterruptedSavesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cmdutil.ErrInterrupted)
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}, Stdin: "typed-after-ctrl-c\n", Ctx: ctx}
	res := r.Run(t, "context", "create", "a", "--api-url", "http://sf/api", "--key-stdin")
	if res.Code != cmdutil.ExitInterrupted {
		t.Errorf("exit %d, want 130: %s", res.Code, res)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the config file was written (%v)", err)
	}
}
