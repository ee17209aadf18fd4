package proxy

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/sfclienttest"
	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
	"github.com/shakenfist/shakectl/sim/cluster"
)

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
	sfc := sfclienttest.Find(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // bound a runaway client
	defer cancel()
	create := []string{"instance", "create", "web-1", "1", "1024", "-d", "8@debian:12"}

	t.Run("without the proxy it fails on the first refusal", func(t *testing.T) {
		sim := startScriptedSim(t)
		cmd := sfc.Command(ctx, t, sim.URL(), "system", "demo", create...)
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
		argv, env := sfc.Argv(create...), sfc.Env(t, "http://unused.invalid", "system", "demo")
		var stdout bytes.Buffer
		var stderr syncbuf.Buffer
		log := output.NewNotifier(&stderr, output.NotifyMode{})
		// Through the capacity gate, as `shakectl wrap` runs by default.
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: sim.URL(), Gate: true, Log: log}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
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
		argv := sfc.Argv("instance", "create", "db-1", "1", "1024", "-d", "8@debian:12")
		env := sfc.Env(t, "http://unused.invalid", "system", "demo")
		var stdout bytes.Buffer
		var stderr syncbuf.Buffer
		log := output.NewNotifier(&stderr, output.NotifyMode{})
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: front.URL + "/api", Gate: true, Log: log}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
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
	t.Run("three at once through one gated wrap", func(t *testing.T) {
		// One refusal, then room: whichever create reaches the server
		// first is refused; the gate holds the others (for that answer,
		// then for its window) and every client still gets its own
		// instance.
		cfg := cluster.DefaultConfig()
		cfg.Listen = "127.0.0.1:0"
		cfg.RetryAfter = 1
		cfg.Script = []cluster.ScriptedAnswer{{Refuse: "sufficient_idle_cpu"}}
		sctx, scancel := context.WithCancel(context.Background())
		defer scancel()
		sim, err := cluster.Start(sctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		py := sfc.Argv()
		script := `"$0" "$1" "$2" instance create web-1 1 1024 -d 8@debian:12 & a=$!
"$0" "$1" "$2" instance create web-2 1 1024 -d 8@debian:12 & b=$!
"$0" "$1" "$2" instance create web-3 1 1024 -d 8@debian:12 & c=$!
wait $a && wait $b && wait $c`
		argv := append([]string{"/bin/sh", "-c", script}, py...)
		env := sfc.Env(t, "http://unused.invalid", "system", "demo")
		var stdout bytes.Buffer
		var stderr syncbuf.Buffer
		log := output.NewNotifier(&stderr, output.NotifyMode{})
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: sim.URL(), Gate: true, Log: log}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || res.Summary.HandedBack != 0 || sim.ScriptRemaining() != 0 {
			t.Fatalf("exit %d, summary %+v, %d scripted refusals left\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Summary, sim.ScriptRemaining(), stdout.String(), stderr.String())
		}
		for _, name := range []string{"web-1", "web-2", "web-3"} {
			if !strings.Contains(stdout.String(), name) {
				t.Errorf("sf-client's output does not show %s:\n%s", name, stdout.String())
			}
		}
		t.Logf("three sf-clients through one gated wrap:\n%s%s", stderr.String(), res.Summary)
	})
}
