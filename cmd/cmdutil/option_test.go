package cmdutil_test

import (
	"strings"
	"testing"
)

// TestOptionPrecedence: for a contextual option every layer is present at
// once, and taking away the highest each time shows the next: flag >
// environment > selected context > config file > default, and Sources
// names the layer that won.
func TestOptionPrecedence(t *testing.T) {
	const file = "namespace: file-ns\ncurrent-context: c\ncontexts:\n  c:\n    namespace: context-ns\n"
	cases := []struct {
		name             string
		file             string
		env              bool
		flag             bool
		want, wantSource string
	}{
		{"flag", file, true, true, "flag-ns", "flag --namespace"},
		{"environment", file, true, false, "env-ns", "environment variable SHAKECTL_NAMESPACE"},
		{"context", file, false, false, "context-ns", "context c in "},
		{"file", "namespace: file-ns\n", false, false, "file-ns", "config file "},
		{"default", "", false, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newConfigWorld(t)
			if c.file != "" {
				w.write(w.configFile(), c.file, 0o600)
			}
			if c.env {
				w.env["SHAKECTL_NAMESPACE"] = "env-ns"
			}
			var args []string
			if c.flag {
				args = []string{"--namespace", "flag-ns"}
			}
			cfg, _, err := w.load(args...)
			if err != nil {
				t.Fatal(err)
			}
			src := cfg.Sources["namespace"]
			if cfg.Namespace != c.want || !strings.HasPrefix(src, c.wantSource) || (c.wantSource == "" && src != "") {
				t.Errorf("namespace %q from %q, want %q from %q…", cfg.Namespace, src, c.want, c.wantSource)
			}
		})
	}
}
