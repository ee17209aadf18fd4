package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Contexts round-trip through the XDG config file (mode 600), and the
// selected one is used: flag > env > context > file.
func TestContexts(t *testing.T) {
	// cmdRun gives every run its own XDG directory; SHAKECTL_CONFIG names
	// one file for all of them.
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	r := cmdRun{env: map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": "", "SHAKENFIST_NAMESPACE": ""}}

	r.stdin = "prod-secret-key\n"
	if res := r.run(t, "context", "create", "prod", "--api-url", "http://prod:13000/api", "--namespace", "ops", "--key-stdin", "--use"); res.code != 0 {
		t.Fatal(res)
	}
	r.stdin = ""
	if res := r.run(t, "context", "create", "lab", "--api-url", "http://lab:13000/api", "--namespace", "lab"); res.code != 0 {
		t.Fatal(res)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode: %v %v", st, err)
	}

	view := func(env map[string]string, args ...string) map[string]struct{ Value, Source string } {
		t.Helper()
		rr := r
		rr.env = map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": "", "SHAKENFIST_NAMESPACE": ""}
		for k, v := range env {
			rr.env[k] = v
		}
		res := rr.run(t, append([]string{"config", "view", "-o", "json"}, args...)...)
		var got map[string]struct{ Value, Source string }
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
			t.Fatal(err, res)
		}
		if strings.Contains(res.stdout, "prod-secret-key") {
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

	res := r.run(t, "config", "view", "--context", "nosuch")
	if res.code != ExitUsage || !strings.Contains(res.stderr, `no context "nosuch"`) || !strings.Contains(res.stderr, "flag --context") {
		t.Errorf("unknown context: %s", res)
	}
	res = r.run(t, "context", "list", "-o", "simple")
	if res.stdout != "\tlab\thttp://lab:13000/api\tlab\n*\tprod\thttp://prod:13000/api\tops\n" {
		t.Errorf("list: %q", res.stdout)
	}
	if res := r.run(t, "context", "use", "lab"); res.code != 0 {
		t.Fatal(res)
	}
	if res := r.run(t, "context", "show", "-o", "simple"); !strings.Contains(res.stdout, "name\tlab\n") {
		t.Errorf("show after use: %s", res)
	}
	if res := r.run(t, "context", "delete", "lab"); res.code != 0 {
		t.Fatal(res)
	}
	if res := r.run(t, "context", "show"); res.code != ExitUsage {
		t.Errorf("show with no current context: %s", res)
	}
}

// --context with no config file at all is an error, not silently nothing.
func TestContextWithoutConfigFile(t *testing.T) {
	res := cmdRun{}.run(t, "config", "view", "--context", "prod")
	if res.code != ExitUsage || !strings.Contains(res.stderr, "--context prod: no config file") {
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
	res := cmdRun{env: map[string]string{"SHAKECTL_CONFIG": file, "SHAKENFIST_KEY": ""}}.run(t, "config", "view")
	if !strings.Contains(res.stderr, "readable by other users") || !strings.Contains(res.stderr, "chmod 600 "+file) {
		t.Errorf("no warning: %s", res)
	}
}
