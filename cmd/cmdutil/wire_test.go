package cmdutil_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// Each error body of client/testdata/errors.json is what the real server
// (shakenfist da448b1a) or a server of the capacity-refusal
// contract (capacity_refusals.md at 0c24a714) sends; the hint and the exit
// code come from the body, not from the status alone.
func TestRealErrorBodiesChooseHintAndExitCode(t *testing.T) {
	var cases []struct {
		Name, Method, Path string
		Status             int
		Body               json.RawMessage
		Exit               int
		Hint               string
	}
	if err := json.Unmarshal([]byte(clitest.ReadGolden(t, "errors.json")), &cases); err != nil {
		t.Fatal(err)
	}
	commands := map[string][]string{
		"POST /instances":                 {"instance", "create", "web1", "1", "1024", "-d", "8", "--async", "continue"},
		"GET /instances/web9":             {"instance", "show", "web9"},
		"POST /instances/web1/rebootsoft": {"instance", "reboot", "web1"},
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			fa := clitest.NewStubs(t)
			fa.Reply(c.Method, c.Path, c.Status, string(c.Body))
			args, ok := commands[c.Method+" "+c.Path]
			if !ok {
				t.Fatalf("no command for %s %s", c.Method, c.Path)
			}
			res := clitest.AgainstStubs(fa).Run(t, args...)
			if res.Code != c.Exit {
				t.Errorf("exit %d, want %d\n%s", res.Code, c.Exit, res)
			}
			if !strings.Contains(res.Stderr, "hint: ") || !strings.Contains(res.Stderr[strings.Index(res.Stderr, "hint: "):], c.Hint) {
				t.Errorf("hint does not say %q:\n%s", c.Hint, res.Stderr)
			}
		})
	}
}

func TestUnknownNamespaceAtLoginIsAnAuthFailure(t *testing.T) {
	s := httpstub.New(t)
	s.Register(httpstub.REST("POST", "/auth"), httpstub.Error(404, "namespace not found"))
	res := clitest.CmdRun{Url: s.Serve()}.Run(t, "instance", "list")
	if res.Code != cmdutil.ExitAuth || !strings.Contains(res.Stderr, "does not know the namespace") {
		t.Fatal(res)
	}
}

func TestHTMLAnswerIsNotAShakenfistAPI(t *testing.T) {
	// http://host:13000/api: gunicorn serves the routes at /, so Flask
	// answers every /api/... with its HTML 404.
	s := httpstub.New(t)
	s.Register(httpstub.REST("POST", "/api/auth"),
		httpstub.Answer(404, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, clitest.ReadGolden(t, "flask_404.html")))
	res := clitest.CmdRun{Url: s.Serve() + "/api"}.Run(t, "instance", "list")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "hint: this is not a Shakenfist API") ||
		!strings.Contains(res.Stderr, "http://HOST:13000 (the API server itself), or the URL your load balancer serves it at") {
		t.Fatal(res)
	}
}

func TestAPIURLWithoutSchemeIsAUsageError(t *testing.T) {
	res := clitest.CmdRun{Url: "127.0.0.1:13000"}.Run(t, "instance", "list")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "the scheme is missing") {
		t.Fatal(res)
	}
}
