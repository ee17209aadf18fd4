// Package sfclienttest finds and runs the real sf-client command line (the
// 2024 client-python, shakenfist/client-python 6c25293c) for
// interoperability tests: sim/cluster's against the simulator, proxy's
// through shakectl wrap.
//
// No copy of sf-client is in this repository or beside it: these tests run
// only when SHAKECTL_SFCLIENT_DIR names a client-python tree (a checkout of
// the public repository, never committed here), and skip otherwise, in CI
// too. What CI checks without it is data: the exchanges the real sf-client
// had with the real 2024 server, replayed against the simulator.
package sfclienttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

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

// Find returns the sf-client tree SHAKECTL_SFCLIENT_DIR names, with a
// python3 that has its packages, or skips the test saying what is missing.
func Find(t testing.TB) Client {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		t.Skipf("real sf-client interop test skipped: %s", why)
	}
	dir := os.Getenv("SHAKECTL_SFCLIENT_DIR")
	if dir == "" {
		missing("SHAKECTL_SFCLIENT_DIR is not set (point it at a client-python tree, the directory holding shakenfist_client/)")
	}
	if st, err := os.Stat(filepath.Join(dir, "shakenfist_client", "main.py")); err != nil || st.IsDir() {
		missing("SHAKECTL_SFCLIENT_DIR=" + dir + " holds no shakenfist_client/main.py")
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

// Argv runs sf-client with args the way its package's own entry point
// does (the click command, named sf-client in its messages).
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
