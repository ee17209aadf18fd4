package cmdutil_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// hostileAPI answers /auth properly and every other request with the given
// misbehaviour, counting the requests that reached it.
func hostileAPI(t *testing.T, misbehave func(n int32, w http.ResponseWriter, r *http.Request)) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/auth" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token": "`+clitest.TestToken+`"}`)
			return
		}
		misbehave(n.Add(1), w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// resetConnection drops the connection with a TCP RST, as a crashing proxy
// or a load balancer does.
func resetConnection(t *testing.T, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func transient507(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInsufficientStorage)
	_, _ = io.WriteString(w, `{"error": "No nodes with enough idle CPU", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`)
}

// TestHostileServers: whatever the server does wrong, the user gets one
// error line (plus at most a hint), the right exit code, nothing on stdout
// and no panic.
func TestHostileServers(t *testing.T) {
	huge := strings.Repeat("x", 5<<20)
	cases := []struct {
		name      string
		misbehave func(n int32, w http.ResponseWriter, r *http.Request)
		code      int
		want      string
	}{
		{"connection reset", func(_ int32, w http.ResponseWriter, _ *http.Request) { resetConnection(t, w) }, cmdutil.ExitFailure, "GET http://127.0.0.1:"},
		{"closed mid-body", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "4096")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `[{"uuid": "6a4e`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
		}, cmdutil.ExitFailure, "/instances: reading the answer: unexpected EOF"},
		{"HTML 503 from a proxy", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>")
		}, cmdutil.ExitFailure, "503 Service Unavailable: (HTML page) 503 Service Temporarily Unavailable"},
		{"HTML 504 from a proxy", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = io.WriteString(w, "<html><head><title>504 Gateway Time-out</title></head></html>")
		}, cmdutil.ExitFailure, "504 Gateway Timeout: (HTML page) 504 Gateway Time-out"},
		{"507 of several megabytes", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInsufficientStorage)
			_, _ = io.WriteString(w, `{"error": "`+huge+`", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`)
		}, cmdutil.ExitCapacityPermanent, "507 Insufficient Storage"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, _ := hostileAPI(t, c.misbehave)
			res := clitest.CmdRun{Url: url}.Run(t, "instance", "list")
			if res.Code != c.code {
				t.Errorf("exit %d, want %d\n%s", res.Code, c.code, res)
			}
			assertOneErrorLine(t, res, c.want)
		})
	}
}

// assertOneErrorLine: an error line containing want, at most a hint after
// it, short enough to read, nothing on stdout, no stack trace.
func assertOneErrorLine(t *testing.T, res clitest.RunResult, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], want) {
		t.Errorf("first stderr line %q, want an error line containing %q", lines[0], want)
	}
	if len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ")) {
		t.Errorf("want one error line and at most a hint, got:\n%s", res.Stderr)
	}
	if len(lines[0]) > 1000 {
		t.Errorf("error line is %d bytes long: the body was not bounded", len(lines[0]))
	}
	if res.Stdout != "" {
		t.Errorf("stdout %q", res.Stdout)
	}
	if strings.Contains(res.Stderr, "goroutine ") || strings.Contains(res.Stderr, "panic") {
		t.Errorf("stack trace:\n%s", res.Stderr)
	}
}

// TestRetryStopsOnFaults: with --retry-transient-capacity, an answer that
// is not a transient refusal in the middle of the sequence ends the retry
// and is what the user sees; only the refusal before it was retried.
//
// On loopback (the reset is a real TCP RST) with the refusal's real
// one-second wait: each case's server is its own and CmdRun sets no
// process state, so the cases wait in parallel.
func TestRetryStopsOnFaults(t *testing.T) {
	cases := []struct {
		name  string
		fault func(w http.ResponseWriter)
		code  int
		want  string
	}{
		{"503 after a transient 507", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error": "database unavailable", "status": 503}`)
		}, cmdutil.ExitFailure, "503 Service Unavailable: database unavailable"},
		{"reset after a transient 507", func(w http.ResponseWriter) { resetConnection(t, w) }, cmdutil.ExitFailure, "POST http://127.0.0.1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url, n := hostileAPI(t, func(n int32, w http.ResponseWriter, _ *http.Request) {
				if n == 1 {
					transient507(w)
					return
				}
				c.fault(w)
			})
			res := clitest.CmdRun{Url: url}.Run(t, "--retry-transient-capacity", "--async", "continue", "--timeout", "30s",
				"instance", "create", "web1", "1", "512", "-d", "8")
			if res.Code != c.code {
				t.Errorf("exit %d, want %d\n%s", res.Code, c.code, res)
			}
			if got := n.Load(); got != 2 {
				t.Errorf("%d creates sent, want 2 (the refusal, then the fault, not retried)", got)
			}
			lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "capacity refused at stage sufficient_idle_cpu (transient); retrying in 1s (attempt 2/5, ") {
				t.Fatalf("want the retry line first, got:\n%s", res.Stderr)
			}
			assertOneErrorLine(t, clitest.RunResult{Code: res.Code, Stdout: res.Stdout, Stderr: strings.Join(lines[1:], "\n") + "\n"}, c.want)
		})
	}
}
