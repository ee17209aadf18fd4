package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/syncbuf"
	"github.com/shakenfist/shakectl/output"
)

// The test binary doubles as the wrapped command: with PROXY_TEST_HELPER
// set it acts as a client of $SHAKENFIST_API_URL instead of running tests.
func TestMain(m *testing.M) {
	switch os.Getenv("PROXY_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "create":
		// One create through $SHAKENFIST_API_URL: exit 0 on 2xx, 1 on
		// anything else (what sf-client does).
		resp, err := http.Post(os.Getenv(EnvAPIURL)+"/instances", "application/json", strings.NewReader(createBody))
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		b, _ := io.ReadAll(resp.Body)
		fmt.Printf("%d %s\n", resp.StatusCode, b)
		if resp.StatusCode/100 != 2 {
			os.Exit(1)
		}
		os.Exit(0)
	case "env":
		fmt.Println(os.Getenv(EnvAPIURL))
		fmt.Println(os.Getenv("SHAKECTL_API_URL"))
		os.Exit(0)
	case "noproxy":
		fmt.Println(os.Getenv("NO_PROXY") + " " + os.Getenv("no_proxy"))
		os.Exit(0)
	case "trap":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("ready")
		sig := <-ch
		if sig == syscall.SIGTERM {
			os.Exit(42)
		}
		os.Exit(43)
	}
}

func helper(t *testing.T, role string) ([]string, []string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, append(os.Environ(), "PROXY_TEST_HELPER="+role)
}

// A command run by RunWrapped reaches the API through the proxy: two
// transient refusals are waited out and the command succeeds; the proxy's
// lines are on stderr.
func TestRunWrappedRetriesForTheCommand(t *testing.T) {
	var n atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := int(n.Add(1))
		if r.URL.Path != "/api/instances" {
			http.NotFound(w, r)
			return
		}
		if k <= 2 {
			refusal("sufficient_idle_cpu", true, "1", k)(w)
			return
		}
		io.WriteString(w, `{"uuid": "u1"}`)
	}))
	defer up.Close()
	argv, env := helper(t, "create")
	// The proxy's lines go to the command's stderr, as shakectl's
	// notifier writes them.
	var stdout bytes.Buffer
	var stderr syncbuf.Buffer
	log := output.NewNotifier(&stderr, output.NotifyMode{})
	res, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: up.URL + "/api", Log: log}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || strings.TrimSpace(stdout.String()) != `200 {"uuid": "u1"}` {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, stdout.String(), stderr.String())
	}
	if got := strings.Count(stderr.String(), "retrying in 1s"); got != 2 {
		t.Errorf("stderr has %d retry lines, want 2:\n%q %+v", got, stderr.String(), res.Summary)
	}
	if res.Summary != (Summary{Requests: 1, Waited: 2}) {
		t.Errorf("summary %+v", res.Summary)
	}
}

// The command sees SHAKENFIST_API_URL and SHAKECTL_API_URL pointing at
// the proxy with the upstream's path prefix, whatever the environment said
// before (issue 34, item 5: a user's SHAKECTL_API_URL, which shakectl
// prefers, was left pointing at the server).
func TestRunWrappedSetsTheAPIURL(t *testing.T) {
	for _, tt := range []struct{ upstream, suffix string }{
		{"http://192.0.2.7/api", "/api"},
		{"http://192.0.2.7:13000", ""},
	} {
		argv, env := helper(t, "env")
		env = append(env, EnvAPIURL+"=http://old.example.com", "SHAKECTL_API_URL=http://old.example.com")
		var stdout bytes.Buffer
		res, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: tt.upstream}, Env: env}, argv, Stdio{Stdout: &stdout, Stderr: io.Discard})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exit %d, %v", res.ExitCode, err)
		}
		got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		for i, name := range []string{EnvAPIURL, "SHAKECTL_API_URL"} {
			if i >= len(got) || !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+`+regexp.QuoteMeta(tt.suffix)+`$`).MatchString(got[i]) {
				t.Errorf("upstream %s: the command saw %s=%q, want the proxy's loopback URL ending in %q", tt.upstream, name, got, tt.suffix)
			}
		}
	}
}

// Exit statuses: the command's own, 128+N for a signal (130, 143), 127
// for a command that does not exist.
func TestRunWrappedExitStatus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tt := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0}, {"exit 3", 3}, {"kill -INT $$", 130}, {"kill -TERM $$", 143},
	} {
		res, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: "http://192.0.2.7:13000"}}, []string{"sh", "-c", tt.script}, Stdio{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil || res.ExitCode != tt.want {
			t.Errorf("sh -c %q: exit %d (%v), want %d", tt.script, res.ExitCode, err, tt.want)
		}
	}
	res, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: "http://192.0.2.7:13000"}}, []string{t.TempDir() + "/no-such-command"}, Stdio{Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || res.ExitCode != 127 {
		t.Errorf("missing command: exit %d, %v; want 127 and an error", res.ExitCode, err)
	}
	if _, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: "http://192.0.2.7:13000"}}, nil, Stdio{}); err == nil {
		t.Error("no command: no error")
	}
}

// A signal handed to RunWrapped reaches the command.
func TestRunWrappedForwardsSignals(t *testing.T) {
	argv, env := helper(t, "trap")
	pr, pw := io.Pipe()
	sigs := make(chan os.Signal, 1)
	type result struct {
		res WrapResult
		err error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // bound a runaway child
	defer cancel()
	go func() {
		res, err := RunWrapped(ctx, WrapOptions{Proxy: Options{Upstream: "http://192.0.2.7:13000"}, Env: env, Signals: sigs}, argv, Stdio{Stdout: pw, Stderr: io.Discard})
		pw.Close()
		done <- result{res, err}
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("helper said %q", line)
	}
	sigs <- syscall.SIGTERM
	go io.Copy(io.Discard, pr)
	r := <-done
	if r.err != nil || r.res.ExitCode != 42 {
		t.Errorf("exit %d (%v), want 42: the helper's SIGTERM trap", r.res.ExitCode, r.err)
	}
}

// Behind an HTTP proxy, the command is told to call 127.0.0.1 directly,
// in both spellings, and keeps the user's own exemptions in both (issue
// 34, item 4: NO_PROXY='*' gained a no_proxy=127.0.0.1 that Python reads
// first, so everything else went through the HTTP proxy).
func TestRunWrappedBypassesAnHTTPProxyForLoopback(t *testing.T) {
	for _, tt := range []struct {
		extra []string
		want  string
	}{
		{[]string{"HTTPS_PROXY=http://192.0.2.1:3128", "NO_PROXY=.corp"}, ".corp,127.0.0.1 .corp,127.0.0.1"},
		{[]string{"HTTP_PROXY=http://192.0.2.1:3128", "NO_PROXY=*"}, "* *"},
		{[]string{"HTTP_PROXY=http://192.0.2.1:3128", "no_proxy=.lab"}, ".lab,127.0.0.1 .lab,127.0.0.1"},
		{[]string{"HTTP_PROXY=http://192.0.2.1:3128", "NO_PROXY=.corp", "no_proxy=.lab"}, ".corp,127.0.0.1 .lab,127.0.0.1"},
		{[]string{"HTTP_PROXY=http://192.0.2.1:3128", "NO_PROXY=localhost,127.0.0.1"}, "localhost,127.0.0.1 localhost,127.0.0.1"},
		{[]string{"http_proxy=http://192.0.2.1:3128"}, "127.0.0.1 127.0.0.1"},
		{nil, " "},
	} {
		argv, env := helper(t, "noproxy")
		var clean []string
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(strings.ToLower(k), "_proxy") {
				clean = append(clean, kv)
			}
		}
		var stdout bytes.Buffer
		res, err := RunWrapped(t.Context(), WrapOptions{Proxy: Options{Upstream: "http://192.0.2.7:13000"}, Env: append(clean, tt.extra...)}, argv, Stdio{Stdout: &stdout, Stderr: io.Discard})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exit %d, %v", res.ExitCode, err)
		}
		if got := strings.TrimSuffix(stdout.String(), "\n"); got != tt.want {
			t.Errorf("env %v: NO_PROXY no_proxy = %q, want %q", tt.extra, got, tt.want)
		}
	}
}
