package parkingprobe_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/output/termtext"
)

const evilText = "\x1b]0;pwned\x07\x1b[2K\rFAKE: all good\u009b2J\u202e"

func assertTerminalSafe(t *testing.T, where, s string) {
	t.Helper()
	if termtext.Block(s) != s {
		t.Errorf("%s reaches the terminal with control characters: %q", where, s)
	}
	if strings.Contains(s, "\nFAKE: all good") {
		t.Errorf("%s starts a forged line: %q", where, s)
	}
}

// Issue 28, item 11: the router's body in the probe's "other:" detail, and
// a report's target in merge's output, are shown, never obeyed.
func TestRouterAndReportTextReachTheTerminalHarmless(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, evilText)
	}))
	t.Cleanup(srv.Close)
	f, out, errOut := probeTestFactory(t, context.Background())
	root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--shed-max", "1h"})
	if !strings.Contains(out.String(), "other:") || !strings.Contains(out.String(), "FAKE") {
		t.Fatalf("no other: detail quoting the body:\n%s", out)
	}
	assertTerminalSafe(t, "probe stdout", out.String())
	assertTerminalSafe(t, "probe stderr", errOut.String())

	// A saved report whose target (and run id) a hostile file set.
	f, out, _ = probeTestFactory(t, context.Background())
	root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--shed-max", "1h", "-o", "json"})
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	doc["target"] = "http://x/" + evilText
	raw, _ := json.Marshal(doc)
	file := filepath.Join(t.TempDir(), "evil.json")
	os.WriteFile(file, raw, 0o644)
	f, out, errOut = probeTestFactory(t, context.Background())
	root.Run(f, []string{"parking-probe", "merge", file})
	if !strings.Contains(out.String(), "FAKE") {
		t.Fatalf("merge did not print the target: stdout %s stderr %s", out, errOut)
	}
	assertTerminalSafe(t, "merge stdout", out.String())
	assertTerminalSafe(t, "merge stderr", errOut.String())
}

// Issue 28, item 10: a password in --target or --metrics-url stays out of
// the report, in text and JSON, and out of --out.
func TestProbeReportRedactsURLPasswords(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			io.WriteString(w, "atenet_router_parking_active 0\n")
			return
		}
		io.WriteString(w, "hello")
	}))
	t.Cleanup(srv.Close)
	withPassword := strings.Replace(srv.URL, "http://", "http://alice:pw-s3cret@", 1)
	out := filepath.Join(t.TempDir(), "r.json")
	for _, format := range []string{"table", "json"} {
		f, stdout, errOut := probeTestFactory(t, context.Background())
		root.Run(f, []string{"parking-probe", "--target", withPassword, "--metrics-url", withPassword + "/metrics", "--requests", "2", "--shed-max", "1h", "-o", format, "--out", out})
		saved, _ := os.ReadFile(out)
		if s := stdout.String() + errOut.String() + string(saved); strings.Contains(s, "pw-s3cret") || !strings.Contains(stdout.String(), "alice:xxxxx@") {
			t.Errorf("-o %s: the password was printed, or the redacted URL not shown:\n%s", format, s)
		}
	}
}
