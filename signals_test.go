//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// parkingForever is a router that parks every request until the client
// gives up; arrived is closed when n requests are in.
func parkingForever(t *testing.T, n int32) (*httptest.Server, chan struct{}) {
	t.Helper()
	var count atomic.Int32
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if count.Add(1) == n {
			close(arrived)
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, arrived
}

// Issue 28, item 16: SIGTERM exits 143 (shells, systemd and Kubernetes
// read 128+15), Ctrl-C 130; the probe still reports what it measured.
func TestSIGTERMExits143(t *testing.T) {
	srv, arrived := parkingForever(t, 4)
	c, stderr, stdout := shakectl(t, nil, "parking-probe", "--target", srv.URL, "--requests", "4", "--actors", "2", "--timeout", "5m", "-o", "json")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the requests did not arrive")
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, c, 30*time.Second); code != cmdutil.ExitTerminated {
		t.Fatalf("exit %d after SIGTERM, want %d", code, cmdutil.ExitTerminated)
	}
	var rep struct {
		Requests    int  `json:"requests"`
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Requests != 4 || !rep.Interrupted {
		t.Errorf("partial report: %v %+v\n%s", err, rep, stdout)
	}
}

// Issue 28, item 8: the second Ctrl-C ends the process at once, whatever it
// is still doing. Here, after the first one, the probe has printed its
// report and waits to write --out to a FIFO that no one reads.
func TestSecondInterruptEndsAtOnce(t *testing.T) {
	srv, arrived := parkingForever(t, 2)
	fifo := filepath.Join(t.TempDir(), "nobody-reads")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0], "parking-probe", "--target", srv.URL, "--requests", "2", "--actors", "2", "--timeout", "5m", "-o", "json", "--out", fifo)
	home := t.TempDir()
	c.Env = []string{"SHAKECTL_TEST_MAIN=1", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the requests did not arrive")
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The report on stdout comes before --out: once it is whole, the first
	// signal has been handled and the process waits for the FIFO's reader.
	var rep map[string]any
	if err := json.NewDecoder(stdout).Decode(&rep); err != nil {
		t.Fatalf("no report after the first SIGINT: %v", err)
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, c, 20*time.Second)
	ws, ok := c.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("want the second SIGINT's default action (killed by SIGINT), got %v", c.ProcessState)
	}
}

// Issue 28, item 4: --config naming a FIFO waited for its writer's data
// whatever the signal, because the config read had no context. Now the
// run's context reaches it: SIGINT ends the read at once with 130 and
// SIGTERM with 143, and a context create saves nothing. The test holds the
// FIFO's write end open and writes nothing, so without the fix the read
// never returns and the exit bound fails the test.
func TestSignalEndsConfigReadFromFIFO(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		want int
		args []string
	}{
		{"instance list, SIGTERM", syscall.SIGTERM, cmdutil.ExitTerminated, []string{"instance", "list"}},
		{"context create, SIGINT", syscall.SIGINT, 130, []string{"context", "create", "lab", "--api-url", "http://127.0.0.1:1/api", "--namespace", "lab"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "config.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			c, stderr, stdout := shakectl(t, nil, append([]string{"--config", fifo}, tc.args...)...)
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			// Opening the write end returns once shakectl has opened the
			// read end: it is then inside the config read, signals caught.
			opened := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err == nil {
					opened <- w
				}
			}()
			select {
			case w := <-opened:
				t.Cleanup(func() { _ = w.Close() })
			case <-time.After(30 * time.Second):
				t.Fatal("shakectl never opened the config FIFO")
			}
			if err := c.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, c, 20*time.Second); code != tc.want {
				t.Fatalf("exit %d after %v, want %d", code, tc.sig, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout after an interrupted config read: %q", stdout)
			}
			// Nothing saved beside the FIFO: no temporary file, no new config.
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != "config.yaml" && e.Name() != "config.yaml.lock" {
					t.Errorf("left %s in the config directory", e.Name())
				}
			}
		})
	}
}
