package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/internal/network"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// helperArg makes the test binary the command wrap runs (a tiny client of
// $SHAKENFIST_API_URL), so the test needs no tool of the machine's.
const helperArg = "shakectl-wrap-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(helperMain(os.Args[2]))
	}
	os.Exit(m.Run())
}

// helperMain is the wrapped command: "create" POSTs one instance create
// to $SHAKENFIST_API_URL/instances and exits 0 on a 2xx, 1 otherwise (as
// sf-client does); "create-as-shakectl" does the same with the URL taken
// as shakectl takes it (SHAKECTL_API_URL first); "exit-N" exits N.
func helperMain(role string) int {
	if n, ok := strings.CutPrefix(role, "exit-"); ok {
		code, _ := strconv.Atoi(n)
		return code
	}
	api := os.Getenv("SHAKENFIST_API_URL")
	if u := os.Getenv("SHAKECTL_API_URL"); role == "create-as-shakectl" && u != "" {
		// shakectl's own order: SHAKECTL_API_URL wins.
		api = u
	}
	resp, err := http.Post(api+"/instances", "application/json", strings.NewReader(`{"name":"web-1","cpus":1,"memory":1024}`))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s\n", resp.StatusCode, body)
	if resp.StatusCode/100 != 2 {
		fmt.Fprintln(os.Stderr, "helper: the create was refused")
		return 1
	}
	return 0
}

func helperArgv(t *testing.T, role string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, helperArg, role}
}

// refusingAPI is an upstream under /api that refuses the first `refusals`
// creates with a transient 507 (Retry-After 1, so the test takes seconds:
// the tests that wait run in parallel) and then accepts them.
func refusingAPI(t *testing.T, refusals int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	h, creates := refusingHandler(refusals, "1")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, creates
}

// refusingHandler is refusingAPI's upstream, whose refusals carry
// retryAfter, for a server of the test's own (one on memnet).
func refusingHandler(refusals int, retryAfter string) (http.Handler, *atomic.Int32) {
	var creates atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/instances" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if int(creates.Add(1)) <= refusals {
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusInsufficientStorage)
			io.WriteString(w, `{"error": "No nodes remaining at scheduling stage sufficient_idle_cpu", "status": 507, "stage": "sufficient_idle_cpu", "transient": true}`)
			return
		}
		io.WriteString(w, `{"uuid": "u1", "name": "web-1"}`)
	}), &creates
}

// createThrough POSTs a create to the proxy at url with c, and fails the
// test unless the upstream's answer came back after its one refusal.
func createThrough(t *testing.T, c *http.Client, url string, creates *atomic.Int32) {
	t.Helper()
	resp, err := c.Post(url+"/instances", "application/json", strings.NewReader(`{"name":"web-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"uuid": "u1", "name": "web-1"}` || creates.Load() != 2 {
		t.Fatalf("through the proxy: %d %s after %d creates upstream", resp.StatusCode, body, creates.Load())
	}
}

// retryLine is the proxy's line before a wait, in the words of shakectl's
// own retry lines. The budget left is what the machine's speed leaves of
// the 60 s budget (58 or 59 s idle; the tests run in parallel, on a busy
// machine too), so any count from 10 to 60 s passes.
func retryLine(attempt int) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^POST /api/instances: capacity refused at stage sufficient_idle_cpu \(transient\); retrying in 1s \(attempt ` + strconv.Itoa(attempt) + `/5, (60|[1-5][0-9])s left\)$`)
}

// The point: a client with no retry of its own fails on the first
// transient refusal, and succeeds under `shakectl wrap`.
func TestWrapGivesItsCommandTheRetry(t *testing.T) {
	t.Parallel()
	t.Run("without wrap the command fails on the first refusal", func(t *testing.T) {
		t.Parallel()
		up, creates := refusingAPI(t, 2)
		argv := helperArgv(t, "create")
		cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "SHAKENFIST_API_URL="+up.URL+"/api")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("the command alone: %v, want exit 1\n%s", err, out)
		}
		if n := creates.Load(); n != 1 {
			t.Errorf("the upstream saw %d creates, want 1", n)
		}
	})

	t.Run("through wrap it succeeds", func(t *testing.T) {
		t.Parallel()
		up, creates := refusingAPI(t, 2)
		res := clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append([]string{"wrap", "--"}, helperArgv(t, "create")...)...)
		if res.Code != 0 {
			t.Fatalf("wrap: %s", res)
		}
		if got := strings.TrimSpace(res.Stdout); got != `200 {"uuid": "u1", "name": "web-1"}` {
			t.Errorf("the command printed %q, want the upstream's answer to its third attempt", got)
		}
		for _, attempt := range []int{2, 3} {
			if !retryLine(attempt).MatchString(res.Stderr) {
				t.Errorf("no retry line for attempt %d on stderr:\n%s", attempt, res.Stderr)
			}
		}
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if last := lines[len(lines)-1]; last != "proxy: 1 request forwarded, 2 refusals waited out, 0 refusals handed back" {
			t.Errorf("the last stderr line is %q, want the summary", last)
		}
		if n := creates.Load(); n != 3 {
			t.Errorf("the upstream saw %d creates, want 3", n)
		}
	})

	t.Run("-o json makes every stderr line of its own a JSON object", func(t *testing.T) {
		t.Parallel()
		up, _ := refusingAPI(t, 1)
		res := clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append([]string{"wrap", "-o", "json", "--"}, helperArgv(t, "create")...)...)
		if res.Code != 0 {
			t.Fatalf("wrap -o json: %s", res)
		}
		var events []string
		for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
			var obj struct {
				Event    string `json:"event"`
				Requests int    `json:"requests"`
				Waited   int    `json:"waited_out"`
			}
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				t.Fatalf("stderr line %q is not JSON: %v", line, err)
			}
			events = append(events, obj.Event)
			if obj.Event == "summary" && (obj.Requests != 1 || obj.Waited != 1) {
				t.Errorf("summary %s", line)
			}
		}
		if strings.Join(events, ",") != "retry,summary" {
			t.Errorf("stderr events %v, want retry then summary", events)
		}
	})
}

// wrap exits with its command's status and adds no error of its own: the
// command has said why on its own stderr. A command that cannot be run is
// wrap's error, with a shell's 127. It needs no namespace or key.
func TestWrapExitsWithItsCommandsStatus(t *testing.T) {
	t.Parallel()
	up, _ := refusingAPI(t, 0)
	run := clitest.CmdRun{Url: up.URL, Env: map[string]string{"SHAKENFIST_NAMESPACE": "", "SHAKENFIST_KEY": ""}}
	res := run.Run(t, append([]string{"wrap", "--"}, helperArgv(t, "exit-7")...)...)
	if res.Code != 7 || strings.Contains(res.Stderr, "error:") {
		t.Errorf("a command exiting 7: %s", res)
	}
	if res = run.Run(t, append([]string{"wrap", "--"}, helperArgv(t, "exit-0")...)...); res.Code != 0 || !strings.HasPrefix(res.Stderr, "proxy: 0 requests forwarded, 0 refusals waited out, 0 refusals handed back\nwarning: ") {
		t.Errorf("a command exiting 0, with no namespace or key configured: %s", res)
	}
	res = run.Run(t, "wrap", "--", t.TempDir()+"/no-such-command")
	if res.Code != 127 || !strings.Contains(res.Stderr, "error: cannot run") {
		t.Errorf("a missing command: %s", res)
	}
}

// Issue 34, item 5: wrap points every variable a known client reads the
// API URL from at the proxy, shakectl's SHAKECTL_API_URL (which wins over
// SHAKENFIST_API_URL) too: a command that reads it gets the retry. Before,
// it went straight to the server and failed on the first refusal, and the
// summary's "0 requests forwarded" was all that hinted why; a command
// that makes no request through the proxy is now warned about.
func TestWrapCoversEveryAPIURLVariable(t *testing.T) {
	up, creates := refusingAPI(t, 1)
	// The wrapped command inherits this process's environment.
	t.Setenv("SHAKECTL_API_URL", up.URL+"/api")
	res := clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append([]string{"wrap", "--"}, helperArgv(t, "create-as-shakectl")...)...)
	if res.Code != 0 || !strings.Contains(res.Stderr, "proxy: 1 request forwarded, 1 refusal waited out") {
		t.Fatalf("a command reading SHAKECTL_API_URL got no retry: %s", res)
	}
	if n := creates.Load(); n != 2 {
		t.Errorf("the upstream saw %d creates, want 2", n)
	}
	if strings.Contains(res.Stderr, "warning:") {
		t.Errorf("a warning for a command that used the proxy: %s", res.Stderr)
	}

	argv := helperArgv(t, "exit-0")
	res = clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append([]string{"wrap", "--"}, argv...)...)
	want := "warning: " + argv[0] + " made no request through the proxy, so nothing was retried for it: wrap points SHAKECTL_API_URL and SHAKENFIST_API_URL at the proxy; an API URL from a flag or a config file goes around it\n"
	if res.Code != 0 || !strings.HasSuffix(res.Stderr, want) {
		t.Errorf("no warning for a command that made no request:\n%s\nwant the last line %q", res, want)
	}
	res = clitest.CmdRun{Url: up.URL + "/api"}.Run(t, append([]string{"wrap", "-o", "json", "--"}, argv...)...)
	if !strings.Contains(res.Stderr, `{"warning":"`) {
		t.Errorf("-o json: the warning is not a JSON line: %s", res.Stderr)
	}
}

// startProxyCmd runs `shakectl proxy ARGS` until stop and returns the URL
// it printed on stdout.
func startProxyCmd(t *testing.T, args ...string) (url string, errOut *syncbuf.Buffer, stop func(cause error) int) {
	t.Helper()
	return startProxyCmdOn(t, nil, args...)
}

// startProxyCmdOn is startProxyCmd on network n (Factory.Net): an
// in-memory one for a test inside a testing/synctest bubble; nil is the
// machine's TCP.
func startProxyCmdOn(t *testing.T, n network.Network, args ...string) (url string, errOut *syncbuf.Buffer, stop func(cause error) int) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	f, out, errOut := clitest.ServingFactory(t, ctx, clitest.FirstLineOut)
	if n != nil {
		f.Net = n
	}
	done := make(chan int, 1)
	go func() { done <- root.Run(f, append([]string{"proxy"}, args...)) }()
	select {
	case <-out.Ready:
	case code := <-done:
		t.Fatalf("exited %d before printing its URL; stderr %q", code, errOut)
	case <-time.After(10 * time.Second): // bounds a hung start, times nothing
		t.Fatal("no URL within 10s")
	}
	stop = func(cause error) int {
		cancel(cause) // what SIGINT or SIGTERM does to the run's context
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("still running 10s after the signal")
			return -1
		}
	}
	return strings.TrimSpace(out.String()), errOut, stop
}

// `shakectl proxy` prints its URL (with the upstream's /api prefix) on
// stdout, waits out a transient refusal for a client, and on SIGTERM or
// SIGINT prints its summary and exits 143 or 130.
func TestProxyServesUntilSignalled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		cause error
		code  int
	}{
		{"SIGTERM", cmdutil.ErrTerminated, 143},
		{"SIGINT", cmdutil.ErrInterrupted, 130},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up, creates := refusingAPI(t, 1)
			url, errOut, stop := startProxyCmd(t, "--api-url", up.URL+"/api")
			if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/api$`).MatchString(url) {
				t.Fatalf("stdout %q, want the proxy's loopback URL with /api", url)
			}
			createThrough(t, http.DefaultClient, url, creates)
			if code := stop(tt.cause); code != tt.code {
				t.Errorf("exit %d after %s, want %d; stderr:\n%s", code, tt.name, tt.code, errOut)
			}
			stderr := errOut.String()
			if !retryLine(2).MatchString(stderr) {
				t.Errorf("no retry line on stderr:\n%s", stderr)
			}
			if !strings.Contains(stderr, "proxy: 1 request forwarded, 1 refusal waited out, 0 refusals handed back\n") {
				t.Errorf("no summary on stderr:\n%s", stderr)
			}
		})
	}
}

// Mistakes a user must fix are usage errors (exit 2), before anything
// listens or runs: an address other machines reach without --allow-remote,
// credentials the proxy would not use, no API URL, no command.
func TestProxyAndWrapUsageErrors(t *testing.T) {
	up, creates := refusingAPI(t, 0)
	for _, tt := range []struct {
		args []string
		url  string
		want string
	}{
		{[]string{"proxy", "--listen", "0.0.0.0:0"}, up.URL, `listen address "0.0.0.0:0" is not a loopback address`},
		{[]string{"proxy", "--listen", "127.0.0.1"}, up.URL, `invalid listen address "127.0.0.1"`},
		{[]string{"proxy", "--budget", "-1s"}, up.URL, `invalid argument "-1s" for "--budget" flag: it is out of range: want a duration more than 0 and at most 24h`},
		{[]string{"proxy", "--key", "x"}, up.URL, "--key does not apply to shakectl proxy"},
		{[]string{"wrap", "--namespace", "x", "--", "true"}, up.URL, "--namespace does not apply to shakectl wrap"},
		// The hint names the config file this run reads (the runner's
		// XDG_CONFIG_HOME), as every client command's does.
		{[]string{"proxy"}, "", filepath.Join("xdg", "shakectl", "config.yaml") + " or a context; no namespace or key is needed"},
		{[]string{"wrap", "--", "true"}, "", "no API URL configured"},
		{[]string{"wrap"}, up.URL, "no command to run"},
		{[]string{"proxy", "--api-url", "ftp://example.com"}, "", "invalid upstream API URL"},
	} {
		res := clitest.CmdRun{Url: tt.url}.Run(t, tt.args...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, tt.want) || res.Stdout != "" {
			t.Errorf("shakectl %s: %s\nwant exit 2 and %q", strings.Join(tt.args, " "), res, tt.want)
		}
	}
	if n := creates.Load(); n != 0 {
		t.Errorf("the upstream saw %d creates", n)
	}
}

// wrap subscribes to SIGINT and SIGTERM itself and passes them to its
// command, so the run must not also catch them (its context would end and
// the command would be sent SIGTERM a second time); proxy, like every other
// serving command, leaves that to the run.
func TestOnlyWrapHandlesItsOwnSignals(t *testing.T) {
	up, _ := refusingAPI(t, 0)
	for _, tt := range []struct {
		args  []string
		catch bool
	}{
		{append([]string{"wrap", "--api-url", up.URL, "--"}, helperArgv(t, "exit-0")...), false},
		{[]string{"proxy", "--api-url", up.URL}, true},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		f, out, errOut := clitest.ServingFactory(t, ctx, clitest.FirstLineOut)
		caught := false
		f.CatchInterrupts = func() func() { caught = true; return func() {} }
		done := make(chan int, 1)
		go func() { done <- root.Run(f, tt.args) }()
		select {
		case <-out.Ready: // proxy serves until cancelled
		case <-done: // wrap's command has exited
			done <- 0
		case <-time.After(10 * time.Second): // bounds a hang, times nothing
			t.Fatalf("shakectl %s: neither exited nor served; stderr %q", tt.args[0], errOut)
		}
		cancel()
		<-done
		if caught != tt.catch {
			t.Errorf("shakectl %s: the run caught the signals itself: %v, want %v", tt.args[0], caught, tt.catch)
		}
	}
}

// The shell completes both commands and their flags; after wrap's "--" it
// offers the shell's own completion (files, and commands in the first
// word), as after sudo or env, not shakectl's.
func TestProxyAndWrapComplete(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		want      string
		directive string
	}{
		{[]string{"pro"}, "proxy", clitest.NoFileCompLine},
		{[]string{"wr"}, "wrap", clitest.NoFileCompLine},
		{[]string{"proxy", "--allow"}, "--allow-remote", clitest.NoFileCompLine},
		{[]string{"wrap", "--bud"}, "--budget", clitest.NoFileCompLine},
		{[]string{"wrap", "--", ""}, "", ":0"},
	} {
		f, out, _ := clitest.CompletionTestFactory(t)
		names, directive := clitest.RunComplete(t, f, out, tt.args...)
		if (tt.want != "" && !slices.Contains(names, tt.want)) || (tt.want == "" && len(names) != 0) || directive != tt.directive {
			t.Errorf("__complete %q: %q %s, want %q and %s", tt.args, names, directive, tt.want, tt.directive)
		}
	}
}
