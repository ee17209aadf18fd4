package cmdutil_test

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
	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// A server that answers something other than the API's JSON: each case is
// one clear line on stderr, the right exit code, nothing on stdout, and no
// panic or stack trace.
func TestBrokenServerAnswers(t *testing.T) {
	cases := []struct {
		name  string
		reply clitest.CannedReply
		code  int
		want  string
		hint  string
	}{
		{"HTML page", clitest.CannedReply{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: "<!doctype html><html><head><title>Welcome to nginx</title></head></html>"}, 1,
			"error: GET /instances: the server answered 200 with an HTML page, not JSON", "this is not a Shakenfist API"},
		{"empty body", clitest.CannedReply{Status: 200}, 1, "error: GET /instances: the server answered 200 with an empty body, not JSON", "cut short"},
		{"truncated JSON", clitest.CannedReply{Status: 200, Body: `[{"uuid": "6a4e1a57", "name": "we`}, 1, "error: GET /instances: the server answered 200 with truncated JSON", "cut short"},
		{"wrong shape", clitest.CannedReply{Status: 200, Body: `{"instances": []}`}, 1, "error: GET /instances: the server answered 200 with JSON an object where an array was expected", "not what the Shakenfist API sends"},
		{"302 to a login page", clitest.CannedReply{Status: 302, Header: map[string]string{"Location": "https://sso.example/login?next=%2F"}}, 1,
			"error: GET /instances: 302 Found: redirected to https://sso.example/login?next=%2F", "login proxy"},
		{"HTML 502 from a proxy", clitest.CannedReply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><head><title>502 Bad Gateway</title></head><body>\n<h1>Bad</h1></body></html>"}, 1,
			"error: GET /instances: 502 Bad Gateway: (HTML page) 502 Bad Gateway", "the server failed; try again"},
		{"error object instead of string", clitest.CannedReply{Status: 400, Body: `{"error": {"field": "cpus", "reason": "too many"}, "status": 400}`}, 1,
			`error: GET /instances: 400 Bad Request: {"field":"cpus","reason":"too many"}`, "refused the request's parameters"},
		// The login succeeded: the credentials are not what was
		// refused (issue 40, item 11).
		{"401 with good credentials", clitest.CannedReply{Status: 401, Body: `{"error": "unauthorized", "status": 401}`}, 4,
			"error: GET /instances: 401 Unauthorized: unauthorized", "accepted at login, but the server refused the token it had just issued"},
		{"403", clitest.CannedReply{Status: 403, Body: `{"error": "forbidden", "status": 403}`}, 4, "error: GET /instances: 403 Forbidden: forbidden", "not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fa := clitest.NewStubs(t)
			fa.Canned("GET", "/instances", c.reply)
			res := clitest.AgainstStubs(fa).Run(t, "instance", "list")
			if res.Code != c.code {
				t.Errorf("exit %d, want %d", res.Code, c.code)
			}
			lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
			if !strings.HasPrefix(lines[0], c.want) {
				t.Errorf("first line %q\nwant prefix %q", lines[0], c.want)
			}
			if len(lines) != 2 || !strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], c.hint) {
				t.Errorf("want one hint line saying %q, got:\n%s", c.hint, res.Stderr)
			}
			if res.Stdout != "" {
				t.Errorf("stdout %q", res.Stdout)
			}
			if strings.Contains(res.Stderr, "goroutine ") || strings.Contains(res.Stderr, "panic") {
				t.Errorf("stack trace:\n%s", res.Stderr)
			}
		})
	}
}

func TestExpiredTokenIsRenewedOnce(t *testing.T) {
	fa := clitest.NewStubs(t)
	// The token has expired by the first request: 401, as the real server
	// answers it.
	fa.InTurn("GET", "/nodes", httpstub.Error(401, "unauthorized"), httpstub.String(200, string(clitest.JoinRaw(clitest.FixtureNodes))))
	res := clitest.AgainstStubs(fa).Run(t, "node", "list")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if n := fa.Logins(); n != 2 {
		t.Errorf("%d logins, want 2 (one re-login)", n)
	}
	if n := fa.Count("GET", "/nodes"); n != 2 {
		t.Errorf("%d lists, want 2 (one repeat after the re-login)", n)
	}
}

func TestWrongKeyIsExit4WithHowToConfigure(t *testing.T) {
	fa := clitest.NewStubs(t)
	r := clitest.AgainstStubs(fa)
	r.Env = map[string]string{"SHAKENFIST_KEY": "wrong-key-value"}
	res := r.Run(t, "instance", "list")
	if res.Code != cmdutil.ExitAuth {
		t.Fatal(res)
	}
	if !strings.Contains(res.Stderr, "hint: the namespace and key were refused: set SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE and SHAKENFIST_KEY") {
		t.Errorf("stderr %q", res.Stderr)
	}
	if strings.Contains(res.Stderr, "wrong-key-value") {
		t.Errorf("the key was printed")
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res := clitest.CmdRun{Url: url}.Run(t, "node", "list")
	if res.Code != cmdutil.ExitFailure {
		t.Fatal(res)
	}
	if !strings.Contains(res.Stderr, "connection refused") || !strings.Contains(res.Stderr, "hint: check the API URL (--api-url, SHAKENFIST_API_URL) and that the server is running") {
		t.Errorf("stderr %q", res.Stderr)
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
		res := clitest.CmdRun{Env: c.env}.Run(t, "instance", "list")
		if res.Code != cmdutil.ExitUsage || !strings.HasPrefix(res.Stderr, c.want) {
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
		res := clitest.AgainstStubs(clitest.NewStubs(t)).Run(t, "--config", p, "instance", "list")
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, want) || res.Stdout != "" {
			t.Errorf("%q: %s", content, res)
		}
	}
}

func TestJSONErrorObjectOnStderr(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.ReplyWith("GET", "/instances/nosuch", 404, http.Header{"X-Request-ID": {"req-0002"}}, `{"error": "instance not found", "status": 404}`)
	res := clitest.AgainstStubs(fa).Run(t, "-o", "json", "instance", "show", "nosuch")
	if res.Code != cmdutil.ExitNotFound || res.Stdout != "" {
		t.Fatal(res)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(res.Stderr), &obj); err != nil {
		t.Fatalf("stderr is not a JSON object: %v\n%s", err, res.Stderr)
	}
	for _, k := range []string{"error", "status", "attempts", "elapsed_seconds", "request_id", "exit_code", "hint"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("no %s in %v", k, obj)
		}
	}
	if strings.Count(res.Stderr, "\n") != 1 {
		t.Errorf("want exactly one line: %q", res.Stderr)
	}
	// Usage errors too, even when -o json came with the bad flag.
	res = clitest.AgainstStubs(clitest.NewStubs(t)).Run(t, "instance", "create", "x", "two", "1", "-o", "json")
	if err := json.Unmarshal([]byte(res.Stderr), &obj); err != nil || obj["exit_code"] != 2.0 {
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
	fa := clitest.NewFixtureStubs(t)
	fa.InTurn("POST", "/instances", clitest.TransientRefusal("1").Answer(),
		// A hostile server echoing the secrets back in an error.
		httpstub.String(400, fmt.Sprintf(`{"error": "bad key %s for token %s", "status": 400}`, clitest.TestKey, clitest.TestToken)),
		httpstub.String(200, clitest.CreatedInstance("w", "created")))
	fa.Reply("GET", "/nodes/leaky", 500, fmt.Sprintf(`{"error": "Authorization: Bearer %s", "status": 500}`, clitest.TestToken))
	fa.Reply("GET", "/instances/nosuch", 404, `{"error": "instance not found", "status": 404}`)
	r := clitest.StubsInMemory(fa)
	var all strings.Builder
	runs := [][]string{
		{"instance", "list", "--debug"},
		{"instance", "list", "--debug", "-o", "json"},
		{"instance", "show", "web1", "--debug", "-o", "yaml"},
		{"instance", "show", "nosuch", "--debug"},
		{"instance", "create", "w", "1", "512", "-d", "8", "--debug", "--retry-transient-capacity"},
		{"instance", "create", "w", "1", "512", "-d", "8", "--debug", "-o", "json"},
		{"node", "show", "leaky", "--debug", "-o", "json"},
		{"node", "list", "--key", clitest.TestKey, "--debug"},
		{"namespace", "list", "--debug", "-o", "simple"},
		{"network", "list", "--debug", "--key", clitest.TestKey, "--namespace", clitest.TestNamespace},
		{"api", "POST", "/auth", "--debug", "-F", "namespace=" + clitest.TestNamespace, "-f", "key=nottheone"},
		{"api", "GET", "/instances", "--debug"},
		{"version"},
		{"instance", "list", "--debug", "--key", "wrong"},
	}
	for _, args := range runs {
		// Only what the command printed: the arguments hold the key.
		res := r.Run(t, args...)
		fmt.Fprintf(&all, "%s\n", res)
	}
	// The token expiring mid-run, and a re-login, under --debug.
	expiring := clitest.NewStubs(t)
	expiring.InTurn("GET", "/instances", httpstub.Error(401, "unauthorized"), httpstub.String(200, string(clitest.JoinRaw(clitest.FixtureInstances))))
	res := clitest.StubsInMemory(expiring).Run(t, "instance", "list", "--debug")
	if res.Code != 0 || expiring.Logins() != 2 {
		t.Errorf("no re-login after the 401, so the test proves nothing: %s", res)
	}
	fmt.Fprintf(&all, "%s\n", res)

	out := all.String()
	if !strings.Contains(out, "debug: ") {
		t.Fatalf("--debug printed nothing, so the test proves nothing:\n%s", out)
	}
	for name, secret := range map[string]string{"key": clitest.TestKey, "token": clitest.TestToken} {
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
		{cmdutil.UsageErrorf("bad"), 2},
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
		{&cmdutil.TimeoutError{Timeout: time.Second}, 124},
		{&cmdutil.WaitTimeoutError{What: "x"}, 124},
		{&cmdutil.InstanceFailedError{Ref: "x", State: "error"}, 1},
		{errors.Join(cmdutil.ErrInterrupted, apiErr(507, `{"transient":true}`)), 130},
	}
	for _, c := range cases {
		if got := cmdutil.ExitCode(c.err); got != c.code {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

func TestDescribeErrorKeepsOneLine(t *testing.T) {
	r := cmdutil.DescribeError(errors.New("line one\nline two\x1b[31m\tred"))
	if r.Message != "line one line two [31m red" {
		t.Errorf("%q", r.Message)
	}
}

// When the configuration itself is what fails, -o json still gets a JSON
// error object on stderr, however the flag was spelled.
func TestJSONErrorWhenConfigFails(t *testing.T) {
	for _, spelling := range [][]string{{"-o", "json"}, {"-ojson"}, {"--output=json"}, {"--output", "json"}} {
		args := append(append([]string{}, spelling...), "--timeout", "bogus", "node", "list")
		res := clitest.CmdRun{Url: "http://127.0.0.1:1"}.Run(t, args...)
		var obj struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}
		if err := json.Unmarshal([]byte(res.Stderr), &obj); err != nil || res.Code != cmdutil.ExitUsage || obj.ExitCode != cmdutil.ExitUsage || !strings.Contains(obj.Error, `invalid timeout "bogus"`) {
			t.Errorf("%v: exit %d, stderr %q (%v)", spelling, res.Code, res.Stderr, err)
		}
		if res.Stdout != "" {
			t.Errorf("%v: stdout %q", spelling, res.Stdout)
		}
	}
}

// Issue 34, item 12: the hint for a missing API URL names the config file
// this run reads: --config, SHAKECTL_CONFIG, else the XDG default.
func TestMissingAPIURLNamesTheConfigFileInUse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(file, []byte("namespace: ops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const lead = "error: no API URL configured: set SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE and SHAKENFIST_KEY, pass --api-url/--namespace, or write api-url, namespace and key to "
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SHAKECTL_CONFIG": file}, nil, lead + file + " (mode 600)\n"},
		{nil, []string{"--config", file}, lead + file + " (mode 600)\n"},
	} {
		res := clitest.CmdRun{Env: c.env}.Run(t, append([]string{"instance", "list"}, c.args...)...)
		if res.Code != cmdutil.ExitUsage || res.Stderr != c.want {
			t.Errorf("%v %v: %s", c.env, c.args, res)
		}
	}
	// CmdRun gives each run its own XDG_CONFIG_HOME: the default is in it.
	res := clitest.CmdRun{}.Run(t, "instance", "list")
	if !strings.HasPrefix(res.Stderr, lead) || !strings.HasSuffix(res.Stderr, string(filepath.Separator)+filepath.Join("xdg", "shakectl", "config.yaml")+" (mode 600)\n") {
		t.Errorf("the default path: %s", res)
	}
}
