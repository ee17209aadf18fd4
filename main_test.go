package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// The test binary doubles as shakectl: with SHAKECTL_TEST_MAIN=1 it runs
// the real main, so these tests send real signals to a real process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == countSignalsArg {
		os.Exit(countSignals())
	}
	if os.Getenv("SHAKECTL_TEST_MAIN") == "1" {
		os.Exit(root.Main())
	}
	os.Exit(m.Run())
}

// countSignalsArg, as the test binary's first argument, makes it a
// command for wrap to run that counts the SIGINTs it gets: it prints
// "ready" once it listens, "child got SIGINT #N" for each, and on SIGTERM
// "child: N SIGINT" and exits 0 (exit 3 if nothing ends it in a minute).
const countSignalsArg = "__count-signals"

func countSignals() int {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	fmt.Println("ready")
	n := 0
	for {
		select {
		case sig := <-sigs:
			if sig == syscall.SIGTERM {
				fmt.Printf("child: %d SIGINT\n", n)
				return 0
			}
			n++
			fmt.Printf("child got SIGINT #%d\n", n)
		case <-time.After(time.Minute):
			return 3
		}
	}
}

// shakectl starts the test binary as shakectl with args, in an environment
// that has no user configuration.
func shakectl(t *testing.T, env []string, args ...string) (*exec.Cmd, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	home := t.TempDir()
	c.Env = append([]string{
		"SHAKECTL_TEST_MAIN=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + os.Getenv("PATH"),
	}, env...)
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	c.Stdout = &stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	return c, stderr, &stdout
}

// waitExit waits for the process and returns its exit code, failing the
// test if it does not end within limit (a hang, not a slow machine: the
// limits are far above what the behaviour needs).
func waitExit(t *testing.T, c *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
		return c.ProcessState.ExitCode()
	case <-time.After(limit):
		_ = c.Process.Kill()
		t.Fatalf("shakectl did not exit within %s", limit)
		return -1
	}
}

// TestInterruptDuringRetryWait: Ctrl-C while --retry-transient-capacity
// waits out a 60 s Retry-After stops the wait at once and exits 130.
func TestInterruptDuringRetryWait(t *testing.T) {
	var creates atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/auth":
			_, _ = io.WriteString(w, `{"access_token": "tok-interrupt"}`)
		case r.URL.Path == "/instances" && r.Method == http.MethodPost:
			creates.Add(1)
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusInsufficientStorage)
			_, _ = io.WriteString(w, `{"error": "No nodes with enough idle CPU", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	c, stderr, _ := shakectl(t, []string{
		"SHAKENFIST_API_URL=" + srv.URL, "SHAKENFIST_NAMESPACE=system", "SHAKENFIST_KEY=k",
	}, "--retry-transient-capacity", "--async", "block", "instance", "create", "web1", "1", "512", "-d", "8")

	// Interrupt once the client has announced its wait.
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "retrying in 1m0s") || strings.Contains(sc.Text(), "retrying in 60s") {
			break
		}
	}
	if len(lines) == 0 || !strings.Contains(lines[len(lines)-1], "retrying in") {
		t.Fatalf("no retry line before the process ended; stderr: %q", lines)
	}
	start := time.Now()
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	// Anything under the 60 s wait shows it was cut short; the bound is no
	// tighter, so a busy machine's slow exit is not mistaken for it.
	code := waitExit(t, c, 50*time.Second)
	if code != cmdutil.ExitInterrupted {
		t.Fatalf("exit %d after SIGINT, want %d; stderr after the signal: %s", code, cmdutil.ExitInterrupted, rest)
	}
	if waited := time.Since(start); waited > 50*time.Second {
		t.Errorf("the 60s wait was not cut short: exit came %s after SIGINT", waited)
	}
	if n := creates.Load(); n != 1 {
		t.Errorf("%d creates sent, want 1 (no retry after the interrupt)", n)
	}
	if !strings.Contains(string(rest), "interrupted") {
		t.Errorf("stderr after SIGINT does not say interrupted: %q", rest)
	}
}

// TestInterruptDuringProbe: Ctrl-C during a probe cancels the requests in
// flight, still prints and writes the report with every request accounted
// for, and exits 130.
func TestInterruptDuringProbe(t *testing.T) {
	const requests = 20
	var arrived atomic.Int32
	allIn := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == requests {
			close(allIn)
		}
		// A router that parks forever: only the client's cancellation ends it.
		<-r.Context().Done()
	}))
	defer srv.Close()

	out := filepath.Join(t.TempDir(), "report.json")
	c, stderr, stdout := shakectl(t, nil, "parking-probe", "--target", srv.URL, "--mode", "burst",
		"--requests", "20", "--actors", "4", "--timeout", "5m", "-o", "json", "--out", out)
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	select {
	case <-allIn:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d of %d requests reached the server", arrived.Load(), requests)
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, c, 30*time.Second); code != cmdutil.ExitInterrupted {
		t.Fatalf("exit %d after SIGINT, want %d", code, cmdutil.ExitInterrupted)
	}

	for name, raw := range map[string][]byte{"stdout": stdout.Bytes(), "--out file": mustRead(t, out)} {
		var rep struct {
			Requests int `json:"requests"`
			Outcomes map[string]struct {
				Count int `json:"count"`
			} `json:"outcomes"`
		}
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatalf("%s is not a JSON report: %v\n%s", name, err, raw)
		}
		sum := 0
		for _, o := range rep.Outcomes {
			sum += o.Count
		}
		if rep.Requests != requests || sum != requests {
			t.Errorf("%s: requests %d, outcomes sum %d, want both %d", name, rep.Requests, sum, requests)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report file: %v", err)
	}
	return b
}
