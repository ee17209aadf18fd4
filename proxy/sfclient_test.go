package proxy

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/sim/cluster"
)

// sfClientDir finds the real sf-client (../shared/peers/sfclient next to
// the repository, as CI lays it out) and the Debian packages it runs on.
// On a user's machine without them the test says so and skips; in CI
// (CI=true) their absence is a failure, so the interop check cannot
// silently stop running.
func sfClientDir(t *testing.T) (dir, python string) {
	t.Helper()
	missing := func(format string, a ...any) {
		t.Helper()
		msg := "real sf-client interop test: " + fmt.Sprintf(format, a...)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: this test must run)")
		}
		t.Skip(msg + "; see ../shared/peers/README.md")
	}
	dir = os.Getenv("SHAKECTL_SFCLIENT_DIR")
	if dir == "" {
		// shared/ beside the repository root or one of its ancestors: CI
		// clones the repository next to shared/; a git worktree under
		// /work/wt/NAME finds /work/shared. (sim/cluster's interop test
		// looks the same way.)
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			cand := filepath.Join(filepath.Dir(root), "shared", "peers", "sfclient")
			if _, err := os.Stat(filepath.Join(cand, "shakenfist_client", "main.py")); err == nil {
				dir = cand
				break
			}
			root = filepath.Dir(root)
		}
	}
	if dir == "" {
		missing("../shared/peers/sfclient is absent (SHAKECTL_SFCLIENT_DIR may name a copy)")
	}
	// Debian's python3, where the apt packages are (the README's recipe);
	// another python3 earlier on PATH would lack them.
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			missing("no python3")
		}
	}
	check := exec.Command(py, "-c", "import click, prettytable, requests, requests_toolbelt, tqdm, pbr, yaml")
	check.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1"}
	if out, err := check.CombinedOutput(); err != nil {
		missing("python3 lacks sf-client's packages (apt-get install python3-click python3-prettytable python3-requests python3-requests-toolbelt python3-tqdm python3-pbr python3-yaml): %s", strings.TrimSpace(string(out)))
	}
	return dir, py
}

// sfClient is the argv and environment that run sf-client from dir
// against apiURL (the README's recipe: PBR_VERSION and the click entry
// point), with HOME in a temporary folder so no user config is read.
func sfClient(t *testing.T, dir, python, apiURL string, args ...string) ([]string, []string) {
	argv := append([]string{python, "-c", `import sys; sys.argv[0]="sf-client"; from shakenfist_client.main import cli; cli()`}, args...)
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"PYTHONPATH=" + dir,
		// shared/ is read-only material: no __pycache__ written into it.
		"PYTHONDONTWRITEBYTECODE=1",
		"PBR_VERSION=0.8.3",
		"SHAKENFIST_NAMESPACE=system",
		"SHAKENFIST_KEY=demo",
		EnvAPIURL + "=" + apiURL,
	}
	return argv, env
}

// startScriptedSim starts the in-process cluster simulator with two
// transient refusals of POST /instances (Retry-After 1 s, so the test
// takes seconds, not the contract's 30).
func startScriptedSim(t *testing.T) *cluster.Server {
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.RetryAfter = 1
	cfg.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu", Repeat: 2}}
	ctx, cancel := context.WithCancel(context.Background())
	sim, err := cluster.Start(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); sim.Close() })
	return sim
}

// The real sf-client `instance create` fails on the first transient
// refusal on its own, and succeeds through RunWrapped (shakectl wrap).
func TestRealSFClientCreateThroughWrap(t *testing.T) {
	dir, py := sfClientDir(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // bound a runaway client
	defer cancel()
	create := []string{"instance", "create", "web-1", "1", "1024", "-d", "8@debian:12"}

	t.Run("without the proxy it fails on the first refusal", func(t *testing.T) {
		sim := startScriptedSim(t)
		argv, env := sfClient(t, dir, py, sim.URL(), create...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("sf-client succeeded without the proxy:\n%s", out)
		}
		if !strings.Contains(string(out), "Insufficient Resources") {
			t.Errorf("sf-client failed, but not on the refusal:\n%s", out)
		}
		if left := sim.ScriptRemaining(); left != 1 {
			t.Errorf("%d scripted refusals left, want 1: sf-client should stop at the first", left)
		}
	})

	t.Run("through wrap it succeeds", func(t *testing.T) {
		sim := startScriptedSim(t)
		argv, env := sfClient(t, dir, py, "http://unused.invalid", create...)
		var stdout, stderr bytes.Buffer
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: sim.URL()}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 {
			t.Fatalf("sf-client exited %d through wrap\nstdout:\n%s\nstderr:\n%s", res.ExitCode, stdout.String(), stderr.String())
		}
		if got := strings.Count(stderr.String(), "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s"); got != 2 {
			t.Errorf("%d retry lines on stderr, want 2:\n%s", got, stderr.String())
		}
		if !strings.Contains(stdout.String(), "web-1") {
			t.Errorf("sf-client's output does not show the instance:\n%s", stdout.String())
		}
		if left := sim.ScriptRemaining(); left != 0 {
			t.Errorf("%d scripted refusals left, want 0", left)
		}
		if res.Summary.Waited != 2 || res.Summary.HandedBack != 0 {
			t.Errorf("summary %+v", res.Summary)
		}
		t.Logf("sf-client through wrap:\n%s%s", stderr.String(), res.Summary)
	})

	t.Run("through wrap behind an /api front end", func(t *testing.T) {
		// As behind Apache: the API under /api. sf-client is given
		// http://127.0.0.1:PORT/api and every call keeps the prefix.
		cfg := cluster.DefaultConfig()
		cfg.RetryAfter = 1
		cfg.Script = []cluster.ScriptedAnswer{{Refuse: "capacity_guard", Repeat: 2}}
		sim, err := cluster.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sim.Close() })
		// (sf-client asks for "/api//instances": its base URL ends in "/".)
		// The front end answers GET /api with a 301 to an absolute /api/,
		// which sf-client's first probe adopts as its base URL
		// (apiclient.py _request_url, 6c25293c): without the proxy's
		// Location rewrite the client would leave the proxy there. Like
		// Apache (MergeSlashes On) it merges the "//" that base URL
		// then produces.
		var front *httptest.Server
		front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api" {
				http.Redirect(w, r, front.URL+"/api/", http.StatusMovedPermanently)
				return
			}
			rest, ok := strings.CutPrefix(r.URL.Path, "/api/")
			if !ok {
				http.NotFound(w, r)
				return
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + strings.TrimLeft(rest, "/")
			r2.URL.RawPath = ""
			sim.Handler().ServeHTTP(w, r2)
		}))
		defer front.Close()
		argv, env := sfClient(t, dir, py, "http://unused.invalid", "instance", "create", "db-1", "1", "1024", "-d", "8@debian:12")
		var stdout, stderr bytes.Buffer
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: front.URL + "/api"}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || !strings.Contains(stdout.String(), "db-1") || res.Summary.Waited != 2 {
			t.Fatalf("exit %d, summary %+v\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Summary, stdout.String(), stderr.String())
		}
		if !strings.Contains(stderr.String(), "POST /api//instances: capacity refused at stage capacity_guard") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})
}
