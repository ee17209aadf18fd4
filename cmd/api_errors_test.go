package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/client"
)

// A server that answers something other than the API's JSON: each case is
// one clear line on stderr, the right exit code, nothing on stdout, and no
// panic or stack trace.
func TestBrokenServerAnswers(t *testing.T) {
	cases := []struct {
		name  string
		reply fakeReply
		code  int
		want  string
		hint  string
	}{
		{"HTML page", fakeReply{status: 200, header: map[string]string{"Content-Type": "text/html"}, body: "<!doctype html><html><head><title>Welcome to nginx</title></head></html>"}, 1,
			"error: GET /instances: the server answered 200 with an HTML page, not JSON", "this is not a Shakenfist API"},
		{"empty body", fakeReply{status: 200}, 1, "error: GET /instances: the server answered 200 with an empty body, not JSON", "cut short"},
		{"truncated JSON", fakeReply{status: 200, body: `[{"uuid": "6a4e1a57", "name": "we`}, 1, "error: GET /instances: the server answered 200 with truncated JSON", "cut short"},
		{"wrong shape", fakeReply{status: 200, body: `{"instances": []}`}, 1, "error: GET /instances: the server answered 200 with JSON an object where an array was expected", "not what the Shakenfist API sends"},
		{"302 to a login page", fakeReply{status: 302, header: map[string]string{"Location": "https://sso.example/login?next=%2F"}}, 1,
			"error: GET /instances: 302 Found: redirected to https://sso.example/login?next=%2F", "login proxy"},
		{"HTML 502 from a proxy", fakeReply{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html><head><title>502 Bad Gateway</title></head><body>\n<h1>Bad</h1></body></html>"}, 1,
			"error: GET /instances: 502 Bad Gateway: (HTML page) 502 Bad Gateway", "the server failed; try again"},
		{"error object instead of string", fakeReply{status: 400, body: `{"error": {"field": "cpus", "reason": "too many"}, "status": 400}`}, 1,
			`error: GET /instances: 400 Bad Request: {"field":"cpus","reason":"too many"}`, "refused the request's parameters"},
		{"401 with good credentials", fakeReply{status: 401, body: `{"error": "unauthorized", "status": 401}`}, 4,
			"error: GET /instances: 401 Unauthorized: unauthorized", "SHAKENFIST_KEY"},
		{"403", fakeReply{status: 403, body: `{"error": "forbidden", "status": 403}`}, 4, "error: GET /instances: 403 Forbidden: forbidden", "not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fa := newFakeAPI(t)
			fa.override = map[string]fakeReply{"GET /instances": c.reply}
			res := against(fa).run(t, "instance", "list")
			if res.code != c.code {
				t.Errorf("exit %d, want %d", res.code, c.code)
			}
			lines := strings.Split(strings.TrimSuffix(res.stderr, "\n"), "\n")
			if !strings.HasPrefix(lines[0], c.want) {
				t.Errorf("first line %q\nwant prefix %q", lines[0], c.want)
			}
			if len(lines) != 2 || !strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], c.hint) {
				t.Errorf("want one hint line saying %q, got:\n%s", c.hint, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout %q", res.stdout)
			}
			if strings.Contains(res.stderr, "goroutine ") || strings.Contains(res.stderr, "panic") {
				t.Errorf("stack trace:\n%s", res.stderr)
			}
		})
	}
}

func TestExpiredTokenIsRenewedOnce(t *testing.T) {
	fa := newFakeAPI(t)
	fa.expireTokenOnce = true
	res := against(fa).run(t, "node", "list")
	if res.code != 0 {
		t.Fatal(res)
	}
	if fa.logins != 2 {
		t.Errorf("%d logins, want 2 (one re-login)", fa.logins)
	}
}

func TestWrongKeyIsExit4WithHowToConfigure(t *testing.T) {
	fa := newFakeAPI(t)
	r := against(fa)
	r.env = map[string]string{"SHAKENFIST_KEY": "wrong-key-value"}
	res := r.run(t, "instance", "list")
	if res.code != ExitAuth {
		t.Fatal(res)
	}
	if !strings.Contains(res.stderr, "hint: the namespace and key were refused: set SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE and SHAKENFIST_KEY") {
		t.Errorf("stderr %q", res.stderr)
	}
	if strings.Contains(res.stderr, "wrong-key-value") {
		t.Errorf("the key was printed")
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res := cmdRun{url: url}.run(t, "node", "list")
	if res.code != ExitFailure {
		t.Fatal(res)
	}
	if !strings.Contains(res.stderr, "connection refused") || !strings.Contains(res.stderr, "hint: check the API URL (--api-url, SHAKENFIST_API_URL) and that the server is running") {
		t.Errorf("stderr %q", res.stderr)
	}
}

func TestMissingConfigurationIsAUsageError(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "error: no API URL configured: set SHAKENFIST_API_URL"},
		{map[string]string{"SHAKENFIST_API_URL": "http://x", "SHAKENFIST_NAMESPACE": ""}, "error: no namespace configured"},
		{map[string]string{"SHAKENFIST_API_URL": "http://x", "SHAKENFIST_KEY": ""}, "error: no API key configured"},
		{map[string]string{"SHAKENFIST_API_URL": "ftp://x"}, `error: invalid API URL "ftp://x": want http:// or https://; check --api-url or SHAKENFIST_API_URL`},
	} {
		res := cmdRun{env: c.env}.run(t, "instance", "list")
		if res.code != ExitUsage || !strings.HasPrefix(res.stderr, c.want) {
			t.Errorf("%v: %s", c.env, res)
		}
	}
}

func TestBrokenConfigFileFailsCommandsWithExit2(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"api-url: [\n":     "is not valid YAML",
		"apiurl: http://x": `unknown key "apiurl"`,
	} {
		p := filepath.Join(dir, "c.yaml")
		os.WriteFile(p, []byte(content), 0o600)
		res := against(newFakeAPI(t)).run(t, "--config", p, "instance", "list")
		if res.code != ExitUsage || !strings.Contains(res.stderr, want) || res.stdout != "" {
			t.Errorf("%q: %s", content, res)
		}
	}
}

func TestJSONErrorObjectOnStderr(t *testing.T) {
	res := against(newFakeAPI(t)).run(t, "-o", "json", "instance", "show", "nosuch")
	if res.code != ExitNotFound || res.stdout != "" {
		t.Fatal(res)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(res.stderr), &obj); err != nil {
		t.Fatalf("stderr is not a JSON object: %v\n%s", err, res.stderr)
	}
	for _, k := range []string{"error", "status", "attempts", "elapsed_seconds", "request_id", "exit_code", "hint"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("no %s in %v", k, obj)
		}
	}
	if strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("want exactly one line: %q", res.stderr)
	}
	// Usage errors too, even when -o json came with the bad flag.
	res = against(newFakeAPI(t)).run(t, "instance", "create", "x", "two", "1", "-o", "json")
	if err := json.Unmarshal([]byte(res.stderr), &obj); err != nil || obj["exit_code"] != 2.0 {
		t.Errorf("usage error with -o json: %s", res)
	}
}

// Runs many commands, successful and failing, with --debug and with the key
// on the command line, and greps everything they print for the key and the
// bearer token.
func TestSecretsAreNeverPrinted(t *testing.T) {
	synctest.Test(t, testSecretsAreNeverPrinted)
}

func testSecretsAreNeverPrinted(t *testing.T) {
	fa := newFakeAPI(t)
	fa.createState = "created"
	fa.createReplies = []fakeReply{transientRefusal("1"),
		// A hostile server echoing the secrets back in an error.
		{status: 400, body: fmt.Sprintf(`{"error": "bad key %s for token %s", "status": 400}`, testKey, testToken)}}
	fa.override = map[string]fakeReply{
		"GET /nodes/leaky": {status: 500, body: fmt.Sprintf(`{"error": "Authorization: Bearer %s", "status": 500}`, testToken)},
	}
	r := inMemory(fa)
	var all strings.Builder
	runs := [][]string{
		{"instance", "list", "--debug"},
		{"instance", "list", "--debug", "-o", "json"},
		{"instance", "show", "web1", "--debug", "-o", "yaml"},
		{"instance", "show", "nosuch", "--debug"},
		{"instance", "create", "w", "1", "512", "-d", "8", "--debug", "--retry-transient-capacity"},
		{"instance", "create", "w", "1", "512", "-d", "8", "--debug", "-o", "json"},
		{"node", "show", "leaky", "--debug", "-o", "json"},
		{"node", "list", "--key", testKey, "--debug"},
		{"namespace", "list", "--debug", "-o", "simple"},
		{"network", "list", "--debug", "--key", testKey, "--namespace", testNamespace},
		{"api", "POST", "/auth", "--debug", "-F", "namespace=" + testNamespace, "-f", "key=nottheone"},
		{"api", "GET", "/instances", "--debug"},
		{"version"},
		{"instance", "list", "--debug", "--key", "wrong"},
	}
	for _, args := range runs {
		// Only what the command printed: the arguments hold the key.
		res := r.run(t, args...)
		fmt.Fprintf(&all, "%s\n", res)
	}
	// The token expiring mid-run, and a re-login, under --debug.
	fa.expireTokenOnce = true
	res := r.run(t, "instance", "list", "--debug")
	fmt.Fprintf(&all, "%s\n", res)

	out := all.String()
	if !strings.Contains(out, "debug: ") {
		t.Fatalf("--debug printed nothing, so the test proves nothing:\n%s", out)
	}
	for name, secret := range map[string]string{"key": testKey, "token": testToken} {
		if i := strings.Index(out, secret); i >= 0 {
			t.Errorf("the %s was printed:\n...%s...", name, out[max(0, i-300):min(len(out), i+100)])
		}
	}
}

func TestExitCodes(t *testing.T) {
	apiErr := func(status int, body string) error {
		return client.NewAPIError("POST", "http://x/instances", status, http.Header{}, []byte(body), time.Now())
	}
	cases := []struct {
		err  error
		code int
	}{
		{errors.New("boom"), 1},
		{usageErrorf("bad"), 2},
		{apiErr(401, `{"error":"no"}`), 4},
		{apiErr(403, `{"error":"no"}`), 4},
		{apiErr(404, `{"error":"no"}`), 5},
		{apiErr(409, `{"error":"affinity"}`), 69},
		{apiErr(507, `{"error":"x","stage":"sufficient_idle_cpu","transient":true}`), 75},
		{apiErr(507, `{"error":"x","stage":"pre_schedule","transient":false}`), 69},
		{apiErr(507, `{"error":"x"}`), 69},
		{apiErr(507, `<html>`), 69},
		{apiErr(500, `{"error":"x"}`), 1},
		{fmt.Errorf("wrapped: %w", apiErr(507, `{"transient":true,"stage":"queue_state"}`)), 75},
		{&TimeoutError{Timeout: time.Second}, 124},
		{&WaitTimeoutError{What: "x"}, 124},
		{&InstanceFailedError{Ref: "x", State: "error"}, 1},
		{errors.Join(ErrInterrupted, apiErr(507, `{"transient":true}`)), 130},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

func TestDescribeErrorKeepsOneLine(t *testing.T) {
	r := DescribeError(errors.New("line one\nline two\x1b[31m\tred"))
	if r.Message != "line one line two [31m red" {
		t.Errorf("%q", r.Message)
	}
}

// When the configuration itself is what fails, -o json still gets a JSON
// error object on stderr, however the flag was spelled.
func TestJSONErrorWhenConfigFails(t *testing.T) {
	for _, spelling := range [][]string{{"-o", "json"}, {"-ojson"}, {"--output=json"}, {"--output", "json"}} {
		args := append(append([]string{}, spelling...), "--timeout", "bogus", "node", "list")
		res := cmdRun{url: "http://127.0.0.1:1"}.run(t, args...)
		var obj struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}
		if err := json.Unmarshal([]byte(res.stderr), &obj); err != nil || res.code != ExitUsage || obj.ExitCode != ExitUsage || !strings.Contains(obj.Error, `invalid timeout "bogus"`) {
			t.Errorf("%v: exit %d, stderr %q (%v)", spelling, res.code, res.stderr, err)
		}
		if res.stdout != "" {
			t.Errorf("%v: stdout %q", spelling, res.stdout)
		}
	}
}
