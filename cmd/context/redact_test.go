package context_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
)

// Issue 28, item 10: a password in the API URL is a secret. config view
// (text and -o json), the context commands and transport errors print the
// URL with the password redacted, as url.URL.Redacted writes it.
func TestURLPasswordsAreNeverPrinted(t *testing.T) {
	const password = "s3cr3t-pw"
	file := filepath.Join(t.TempDir(), "shakectl", "config.yaml")
	r := clitest.CmdRun{Env: map[string]string{"SHAKECTL_CONFIG": file}}
	if res := r.Run(t, "context", "create", "prod", "--api-url", "http://alice:"+password+"@127.0.0.1:1/api", "--namespace", "ops", "--use"); res.Code != 0 {
		t.Fatal(res)
	}
	runs := [][]string{
		{"config", "view"}, {"config", "view", "-o", "json"}, {"config", "view", "-o", "yaml"},
		{"context", "list"}, {"context", "list", "-o", "json"}, {"context", "show", "prod"}, {"context", "show", "prod", "-o", "json"},
		{"node", "list"}, {"node", "list", "--debug"}, {"api", "GET", "/nodes", "-o", "json"},
	}
	for _, args := range runs {
		res := r.Run(t, args...)
		if strings.Contains(res.Stdout+res.Stderr, password) {
			t.Errorf("shakectl %s printed the URL's password:\n%s", strings.Join(args, " "), res)
		}
		if args[0] != "node" && args[0] != "api" && !strings.Contains(res.Stdout, "alice:xxxxx@127.0.0.1:1") {
			t.Errorf("shakectl %s should show the redacted URL:\n%s", strings.Join(args, " "), res)
		}
	}
}
