package context_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Contexts round-trip through the XDG config file (mode 600), and the
// selected one is used: flag > env > context > file.
func TestContexts(t *testing.T) {
	// clitest.CmdRun gives every run its own XDG directory; SHAKECTL_CONFIG names
	// one file for all of them.
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": "", "SHAKENFIST_NAMESPACE": ""}}

	r.Stdin = "prod-secret-key\n"
	if res := r.Run(t, "context", "create", "prod", "--api-url", "http://prod:13000/api", "--namespace", "ops", "--key-stdin", "--use"); res.Code != 0 {
		t.Fatal(res)
	}
	r.Stdin = ""
	if res := r.Run(t, "context", "create", "lab", "--api-url", "http://lab:13000/api", "--namespace", "lab"); res.Code != 0 {
		t.Fatal(res)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode: %v %v", st, err)
	}

	view := func(env map[string]string, args ...string) map[string]struct{ Value, Source string } {
		t.Helper()
		rr := r
		rr.Env = map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": "", "SHAKENFIST_NAMESPACE": ""}
		for k, v := range env {
			rr.Env[k] = v
		}
		res := rr.Run(t, append([]string{"config", "view", "-o", "json"}, args...)...)
		var got map[string]struct{ Value, Source string }
		if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
			t.Fatal(err, res)
		}
		if strings.Contains(res.Stdout, "prod-secret-key") {
			t.Fatal("config view printed the key")
		}
		return got
	}
	if got := view(nil); got["api-url"].Value != "http://prod:13000/api" || !strings.Contains(got["api-url"].Source, "context prod") || got["key"].Value != "[redacted]" {
		t.Errorf("current context: %+v", got)
	}
	if got := view(map[string]string{"SHAKECTL_CONTEXT": "lab"}); got["namespace"].Value != "lab" {
		t.Errorf("SHAKECTL_CONTEXT=lab: %+v", got)
	}
	if got := view(map[string]string{"SHAKECTL_CONTEXT": "lab"}, "--context", "prod"); got["namespace"].Value != "ops" {
		t.Errorf("--context beats SHAKECTL_CONTEXT: %+v", got)
	}
	if got := view(map[string]string{"SHAKENFIST_API_URL": "http://env"}); got["api-url"].Value != "http://env" {
		t.Errorf("env beats the context: %+v", got)
	}
	if got := view(nil, "--api-url", "http://flag"); got["api-url"].Value != "http://flag" {
		t.Errorf("flag beats the context: %+v", got)
	}

	res := r.Run(t, "config", "view", "--context", "nosuch")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, `no context "nosuch"`) || !strings.Contains(res.Stderr, "flag --context") {
		t.Errorf("unknown context: %s", res)
	}
	res = r.Run(t, "context", "list", "-o", "simple")
	if res.Stdout != "\tlab\thttp://lab:13000/api\tlab\n*\tprod\thttp://prod:13000/api\tops\n" {
		t.Errorf("list: %q", res.Stdout)
	}
	if res := r.Run(t, "context", "use", "lab"); res.Code != 0 {
		t.Fatal(res)
	}
	if res := r.Run(t, "context", "show", "-o", "simple"); !strings.Contains(res.Stdout, "name\tlab\n") {
		t.Errorf("show after use: %s", res)
	}
	if res := r.Run(t, "context", "delete", "lab"); res.Code != 0 {
		t.Fatal(res)
	}
	if res := r.Run(t, "context", "show"); res.Code != cmdutil.ExitUsage {
		t.Errorf("show with no current context: %s", res)
	}
}

// --context with no config file at all is an error, not silently nothing.
func TestContextWithoutConfigFile(t *testing.T) {
	res := clitest.CmdRun{}.Run(t, "config", "view", "--context", "prod")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "--context prod: no config file") {
		t.Errorf("%s", res)
	}
}

// A key read from a context in a file others can read is warned about.
func TestContextKeyInReadableFileWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("current-context: p\ncontexts:\n  p:\n    api-url: http://p\n    namespace: n\n    key: k3y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	res := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": ""}}.Run(t, "config", "view")
	if !strings.Contains(res.Stderr, "readable by other users") || !strings.Contains(res.Stderr, "chmod 600 "+file) {
		t.Errorf("no warning: %s", res)
	}
}

// Issue 34, item 12: a context with nothing in it, and one named after the
// config file's own keys, are refused before the file is touched.
func TestCreateRefusesEmptyAndReservedContexts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	for _, args := range [][]string{
		{"context", "create", "empty"},
		{"context", "create", "current-context", "--api-url", "http://lab:13000/api"},
	} {
		if res := r.Run(t, args...); res.Code != cmdutil.ExitUsage {
			t.Errorf("%v: %s", args, res)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the config file was written (%v)", err)
	}
}

// Issue 34, item 12: use and delete say what they did, on stderr.
func TestUseAndDeleteSayWhatTheyDid(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	for _, name := range []string{"lab", "prod"} {
		if res := r.Run(t, "context", "create", name, "--api-url", "http://"+name+":13000/api"); res.Code != 0 {
			t.Fatal(res)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "use", "lab"}, "current context is now lab (" + file + ")\n"},
		{[]string{"context", "delete", "prod"}, "context prod deleted from " + file + "\n"},
		{[]string{"context", "delete", "lab"}, "context lab deleted from " + file + "; it was the current context, and now none is (shakectl context use NAME)\n"},
	} {
		if res := r.Run(t, c.args...); res.Code != 0 || res.Stderr != c.want || res.Stdout != "" {
			t.Errorf("%v: %s", c.args, res)
		}
	}
}

// Issue 34, item 12: a second YAML document in the config file is refused
// by every reader (a command's configuration, the context verbs, their
// edits), with the file's name, and the file is left as it was.
func TestSecondYAMLDocumentRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	const text = "current-context: a\ncontexts:\n  a:\n    api-url: http://a:13000/api\n---\napi-url: http://b:13000/api\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	want := "error: config file " + file + ` holds a second YAML document (from line 5); shakectl reads only one: remove the "---" line and what follows it, or merge it into the first` + "\n"
	for _, args := range [][]string{
		{"config", "view"},
		{"context", "list"},
		{"context", "use", "a"},
		{"context", "create", "b", "--api-url", "http://b:13000/api"},
	} {
		if res := r.Run(t, args...); res.Code != cmdutil.ExitUsage || !strings.HasPrefix(res.Stderr, want) {
			t.Errorf("%v: %s", args, res)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != text {
		t.Errorf("the file was changed:\n%s", b)
	}
}
