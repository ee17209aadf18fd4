package instance_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/sim/cluster"
)

// TestScreenshotOverLoopback: `instance screenshot INSTANCE DEST` asks
// GET /instances/{ref}/screenshot for the blob the server captured (its
// UUID, a JSON string: shakenfist da448b1a InstanceScreenshotEndpoint) and
// saves the blob; the simulator's console is a 64×48 PNG. A directory as
// DEST holds INSTANCE.png. Over loopback in real time (its in-memory
// sibling is below): each generation's simulator is its own and sets no
// process state, so the two wait for their creates in parallel.
func TestScreenshotOverLoopback(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			t.Parallel()
			cfg := cluster.DefaultConfig()
			cfg.Generation = gen
			cfg.Listen = "127.0.0.1:0"
			cfg.AuthNamespace, cfg.AuthKey = clitest.TestNamespace, clitest.TestKey
			cfg.CreateTime = 200 * time.Millisecond
			sim, err := cluster.Start(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sim.Close() })
			r := clitest.CmdRun{Url: sim.URL()}
			if res := r.Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@debian:12", "--async", "block"); res.Code != 0 {
				t.Fatalf("create: %s", res)
			}
			dir := t.TempDir()
			dest := filepath.Join(dir, "shot.png")
			res := r.Run(t, "instance", "screenshot", "web1", dest)
			if res.Code != 0 || res.Stdout != "" || !strings.Contains(res.Stderr, "screenshot of instance web1 is "+dest) {
				t.Fatalf("screenshot: %s", res)
			}
			b, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("the screenshot is not a PNG: %v", err)
			}
			if got := img.Bounds().Size(); got.X != 64 || got.Y != 48 {
				t.Errorf("screenshot is %v, want 64x48", got)
			}
			// Each screenshot is a new blob, and the events say so.
			if res := r.Run(t, "instance", "screenshot", "web1", dir); res.Code != 0 {
				t.Fatalf("screenshot into a directory: %s", res)
			}
			if again, err := os.ReadFile(filepath.Join(dir, "web1.png")); err != nil || !bytes.Equal(again, b) {
				t.Errorf("the directory's web1.png differs from the first shot (%v)", err)
			}
			if res := r.Run(t, "instance", "events", "web1", "-o", "json"); res.Code != 0 || strings.Count(res.Stdout, "screenshot request from REST API") != 2 {
				t.Errorf("events do not record two screenshot requests: %s", res)
			}
			if res := r.Run(t, "instance", "screenshot", "nosuch", filepath.Join(dir, "x.png")); res.Code != cmdutil.ExitNotFound {
				t.Errorf("screenshot of a missing instance: %s", res)
			}
		})
	}
}

// An instance not yet created is refused (406) and no file is left. On
// synctest's clock with the simulator in memory: over loopback, a busy
// machine (load 23) took longer than the 200 ms create between the create
// and the screenshot, and the screenshot succeeded.
func TestScreenshotOfAnInstanceBeingCreatedIsRefused(t *testing.T) {
	for _, gen := range []string{cluster.Generation2024, cluster.Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, _ := clitest.SimClusterInMemory(t, gen, func(c *cluster.Config) { c.CreateTime = 200 * time.Millisecond })
				if res := r.Run(t, "instance", "create", "web2", "1", "1024", "-d", "8@debian:12", "--async", "continue"); res.Code != 0 {
					t.Fatalf("create web2: %s", res)
				}
				dest := filepath.Join(t.TempDir(), "web2.png")
				res := r.Run(t, "instance", "screenshot", "web2", dest)
				if res.Code == 0 || !strings.Contains(res.Stderr, "is not ready") {
					t.Errorf("screenshot of an instance being created: %s", res)
				}
				if _, err := os.Stat(dest); !os.IsNotExist(err) {
					t.Errorf("a refused screenshot left a file (%v)", err)
				}
			})
		})
	}
}

// TestStalledTransferExpires: a transfer the agent makes no progress on
// ends "expired" with expiry_reason "progress" once --progress-timeout
// passes, and shakectl exits 124 naming the reason; without a progress
// timeout the deadline ends it ("deadline"). The default progress timeout
// (30 s) applies when the flag is not given.
func TestStalledTransferExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := simRun(t, cluster.Generation2026, func(c *cluster.Config) { c.AgentTransferStall = true })
		dir := t.TempDir()
		src := filepath.Join(dir, "big.tar")
		clitest.WriteFile(t, src, "payload\n")

		start := time.Now()
		res := r.Run(t, "instance", "upload", "web1", src, "/srv/big.tar", "--progress-timeout", "5s")
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "expired (progress)") {
			t.Errorf("stalled upload: %s", res)
		}
		if took := time.Since(start); took < 5*time.Second || took > 10*time.Second {
			t.Errorf("the stalled upload ended after %s, want just past its 5s progress timeout", took)
		}

		back := filepath.Join(dir, "back")
		start = time.Now()
		res = r.Run(t, "instance", "download", "web1", "/srv/big.tar", back, "--progress-timeout", "0", "--deadline", "8s")
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "expired (deadline)") {
			t.Errorf("stalled download without a progress timeout: %s", res)
		}
		if took := time.Since(start); took < 8*time.Second {
			t.Errorf("the download expired after %s, before its 8s deadline", took)
		}
		if _, err := os.Stat(back); !os.IsNotExist(err) {
			t.Errorf("an expired download left %s (%v)", back, err)
		}

		start = time.Now()
		res = r.Run(t, "instance", "download", "web1", "/srv/big.tar", back)
		if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "expired (progress)") || time.Since(start) < 30*time.Second {
			t.Errorf("stalled download with the server's default progress timeout, after %s: %s", time.Since(start), res)
		}
		// The agent's commands still run: only transfers stall.
		if res := r.Run(t, "instance", "execute", "web1", "--", "echo", "ok"); res.Code != 0 || res.Stdout != "ok\n" {
			t.Errorf("execute beside a stalled agent: %s", res)
		}
	})
}
