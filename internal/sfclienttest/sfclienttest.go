// Package sfclienttest finds and runs the real sf-client command line (the
// 2024 client-python, shakenfist/client-python 6c25293c, copied under
// ../shared/peers/sfclient; see its README) for interoperability tests:
// sim/cluster's against the simulator, proxy's through shakectl wrap.
//
// On a user's machine without it the tests skip and say what is missing;
// in CI (CI=true) its absence fails them, so the interoperability checks
// cannot silently stop running.
package sfclienttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Client is the sf-client copy and the python3 that runs it.
type Client struct {
	Dir    string // holds shakenfist_client/
	Python string
}

// packages are the Debian packages sf-client runs on, as python modules.
const packages = "import click, prettytable, requests, requests_toolbelt, tqdm, pbr, yaml"

// Find returns the sf-client at $SHAKECTL_SFCLIENT_DIR, or in
// shared/peers/sfclient beside the repository or one of its ancestors (CI
// clones the repository next to shared/; the lead's tree /work/main and
// the worktrees /work/wt/NAME both find /work/shared), with a python3 that
// has its packages. It skips the test when one is missing, or fails it in
// CI.
func Find(t testing.TB) Client {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("real sf-client interop test: %s (CI=true: this test must run)", why)
		}
		t.Skipf("real sf-client interop test skipped: %s; see ../shared/peers/README.md (CI runs it)", why)
	}
	dir := find()
	if dir == "" {
		missing("../shared/peers/sfclient is absent (SHAKECTL_SFCLIENT_DIR may name a copy)")
	}
	// Debian's python3 is the one the packages install into; another
	// python3 earlier on PATH (/usr/local/bin's) would lack them.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		if python, err = exec.LookPath("python3"); err != nil {
			missing("python3 is not installed")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hung interpreter
	defer cancel()
	check := exec.CommandContext(ctx, python, "-c", packages)
	check.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1"}
	if out, err := check.CombinedOutput(); err != nil {
		missing("python3 lacks sf-client's packages (apt-get install -y python3-click python3-prettytable python3-requests python3-requests-toolbelt python3-tqdm python3-pbr python3-yaml): " + strings.TrimSpace(string(out)))
	}
	return Client{Dir: dir, Python: python}
}

func find() string {
	if d := os.Getenv("SHAKECTL_SFCLIENT_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for range 8 {
		dir = filepath.Dir(dir)
		cand := filepath.Join(dir, "shared", "peers", "sfclient")
		if st, err := os.Stat(filepath.Join(cand, "shakenfist_client", "main.py")); err == nil && !st.IsDir() {
			return cand
		}
	}
	return ""
}

// Argv runs sf-client with args (the README's recipe: the click entry
// point, named sf-client in its messages).
func (c Client) Argv(args ...string) []string {
	return append([]string{c.Python, "-c", `import sys; sys.argv[0] = "sf-client"; from shakenfist_client.main import cli; cli()`}, args...)
}

// Env is sf-client's whole environment against apiURL as namespace and
// key: a fresh HOME so no ~/.shakenfist of the machine is read, no
// bytecode written into the shared copy, and the PBR_VERSION its packaging
// wants outside a git checkout.
func (c Client) Env(t testing.TB, apiURL, namespace, key string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"PYTHONPATH=" + c.Dir,
		"PYTHONDONTWRITEBYTECODE=1",
		"PBR_VERSION=0.8.3",
		"SHAKENFIST_API_URL=" + apiURL,
		"SHAKENFIST_NAMESPACE=" + namespace,
		"SHAKENFIST_KEY=" + key,
	}
}

// Command is sf-client with args against apiURL, ready to run.
func (c Client) Command(ctx context.Context, t testing.TB, apiURL, namespace, key string, args ...string) *exec.Cmd {
	argv := c.Argv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = c.Env(t, apiURL, namespace, key)
	return cmd
}
