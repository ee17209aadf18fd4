package cluster

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The real sf-client (shakenfist/client-python 6c25293c, the 2024 command
// line, copied under ../shared/peers/sfclient) against the 2024 simulator:
// its namespace and key commands must work as they do against a real 2024
// server, and fail where a real one fails (update-key).

// findSFClient looks for shared/peers/sfclient beside the repository or
// one of its ancestors (the lead's tree is /work/main, worktrees are
// /work/wt/NAME; both have /work/shared), or at $SHAKECTL_SFCLIENT_DIR.
func findSFClient() string {
	if d := os.Getenv("SHAKECTL_SFCLIENT_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for range 6 {
		dir = filepath.Dir(dir)
		cand := filepath.Join(dir, "shared", "peers", "sfclient")
		if st, err := os.Stat(filepath.Join(cand, "shakenfist_client", "main.py")); err == nil && !st.IsDir() {
			return cand
		}
	}
	return ""
}

// sfClientOrSkip finds sf-client and a python3 with its Debian packages.
// Outside CI a missing piece skips the test with what to install; in CI
// (CI=true) it fails, so the interoperability check cannot silently stop.
func sfClientOrSkip(t *testing.T) (python, dir string) {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s", why)
		}
		t.Skipf("sf-client interoperability test skipped: %s (CI runs it)", why)
	}
	dir = findSFClient()
	if dir == "" {
		missing("../shared/peers/sfclient is not present (set SHAKECTL_SFCLIENT_DIR to a copy)")
	}
	// Debian's python3 is the one the packages install into (a python3
	// earlier on PATH, e.g. /usr/local/bin's, would not see them).
	python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		p, err := exec.LookPath("python3")
		if err != nil {
			missing("python3 is not installed")
		}
		python = p
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	probe := exec.CommandContext(ctx, python, "-c", "import click, prettytable, requests, requests_toolbelt, tqdm, pbr, yaml")
	probe.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1"}
	if out, err := probe.CombinedOutput(); err != nil {
		missing("sf-client's python packages are missing (apt-get install -y python3-click python3-prettytable python3-requests python3-requests-toolbelt python3-tqdm python3-pbr python3-yaml): " + strings.TrimSpace(string(out)))
	}
	return python, dir
}

type sfResult struct {
	code           int
	stdout, stderr string
}

func runSFClient(t *testing.T, python, dir, url, ns, key string, args ...string) sfResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	argv := append([]string{"-c", `import sys; sys.argv[0] = "sf-client"; from shakenfist_client.main import cli; cli()`}, args...)
	cmd := exec.CommandContext(ctx, python, argv...)
	cmd.Dir = dir
	// A fresh HOME so no ~/.shakenfist of the machine is read; no
	// bytecode written into the shared copy.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1", "PBR_VERSION=0.8.3",
		"SHAKENFIST_API_URL=" + url, "SHAKENFIST_NAMESPACE=" + ns, "SHAKENFIST_KEY=" + key,
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := sfResult{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("sf-client %v: %v", args, err)
		}
		res.code = ee.ExitCode()
	}
	return res
}

// Each sf-client run costs seconds of Python start-up on a small machine,
// so every command runs once and its effect is read back through the API.
func TestSFClientNamespaceCommands2024(t *testing.T) {
	python, dir := sfClientOrSkip(t)
	t.Parallel()
	srv, c := startSim(t, nil) // Generation2024
	url := srv.URL()
	sf := func(args ...string) sfResult {
		t.Helper()
		return runSFClient(t, python, dir, url, "system", "demo", args...)
	}
	ok := func(args ...string) string {
		t.Helper()
		r := sf(args...)
		if r.code != 0 {
			t.Fatalf("sf-client %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	show := func(name string) map[string]any {
		t.Helper()
		a := c.do("GET", "/auth/namespaces/"+name, nil)
		if a.status != 200 {
			t.Fatalf("show %s: %d %s", name, a.status, a.raw)
		}
		return a.obj(t)
	}

	ok("namespace", "create", "team")
	c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ops"})
	ok("namespace", "add-key", "team", "ci", "s3cret")
	c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "spare", "key": "other"})
	var shown map[string]any
	if err := json.Unmarshal([]byte(ok("--json", "namespace", "show", "team")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown["name"] != "team" || !slices.Equal(anyStrings(shown["keys"]), []string{"ci", "spare"}) {
		t.Errorf("namespace show team: %v", shown)
	}
	// The new key works: sf-client logs in as team with it, and team
	// sees only itself.
	r := runSFClient(t, python, dir, url, "team", "s3cret", "--json", "namespace", "list")
	var list []map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || list[0]["name"] != "team" {
		t.Errorf("namespace list as team: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	ok("namespace", "delete-key", "team", "spare")
	if keys := anyStrings(show("team")["keys"]); !slices.Equal(keys, []string{"ci"}) {
		t.Errorf("keys after delete-key: %v", keys)
	}
	// update-key PUTs /auth/namespaces/team/keys, which a 2024 server
	// does not route for PUT (405): it fails there, and here, and the key
	// is unchanged.
	if r := sf("namespace", "update-key", "team", "ci", "new"); r.code == 0 {
		t.Errorf("update-key succeeded against 2024 (a real 2024 server refuses it): %s", r.stdout)
	}
	loginAs(t, c, "team", "s3cret")

	ok("namespace", "set-metadata", "team", "owner", "alice")
	if md := show("team")["metadata"].(map[string]any); md["owner"] != "alice" {
		t.Errorf("metadata after set-metadata: %v", md)
	}
	if out := ok("namespace", "get-metadata", "team"); !strings.Contains(out, "owner") || !strings.Contains(out, "alice") {
		t.Errorf("get-metadata: %q", out)
	}
	ok("namespace", "delete-metadata", "team", "owner")
	if md := show("team")["metadata"].(map[string]any); len(md) != 0 {
		t.Errorf("metadata after delete-metadata: %v", md)
	}

	var trust map[string]any
	if err := json.Unmarshal([]byte(ok("--json", "namespace", "add-trust", "team", "ops")), &trust); err != nil {
		t.Fatal(err)
	}
	if full := anyStrings(trust["trust"].(map[string]any)["full"]); !slices.Equal(full, []string{"system", "ops"}) {
		t.Errorf("add-trust: %v", trust)
	}
	ok("namespace", "remove-trust", "team", "ops")
	if full := anyStrings(show("team")["trust"].(map[string]any)["full"]); !slices.Equal(full, []string{"system"}) {
		t.Errorf("trust after remove-trust: %v", full)
	}

	// A namespace holding a network and an instance cannot be deleted
	// until it is cleaned.
	team := loginAs(t, c, "team", "s3cret")
	n := team.mustNetwork("net1", "10.9.0.0/24")
	team.mustCreate("web1", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
	if r := sf("namespace", "delete", "team"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "you cannot delete a namespace with instances") {
		t.Errorf("delete of a namespace with an instance: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ok("namespace", "clean", "--confirm", "--namespace", "team")
	ok("namespace", "delete", "team")
	if a := c.do("GET", "/auth/namespaces/team", nil); a.status != 404 {
		t.Errorf("team after delete: %d %s", a.status, a.raw)
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
