package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

func TestAPIPrintsTheBody(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	r := clitest.AgainstStubs(fa)
	res := r.Run(t, "api", "GET", "/nodes")
	if res.Code != 0 || res.Stderr != "" {
		t.Fatal(res)
	}
	if res.Stdout != string(clitest.JoinRaw(clitest.FixtureNodes))+"\n" {
		t.Errorf("piped: want the body as sent, got\n%s", res.Stdout)
	}
	// A lower-case method and a path without its slash are forgiven.
	res = r.Run(t, "api", "get", "auth/namespaces")
	if res.Code != 0 || fa.Count("GET", "/auth/namespaces") != 1 {
		t.Fatal(res)
	}
}

func TestAPIIndentsOnATerminalAndConvertsToYAML(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	r := clitest.AgainstStubs(fa)
	r.Tty = true
	res := r.Run(t, "api", "GET", "/auth/namespaces")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "[\n  {\n    \"name\": \"system\",") {
		t.Fatal(res)
	}
	res = clitest.AgainstStubs(fa).Run(t, "api", "GET", "/auth/namespaces", "-o", "yaml")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "- name: system\n  state: created\n") {
		t.Fatal(res)
	}
}

func TestAPIFieldsBuildATypedBody(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k.pub")
	os.WriteFile(keyFile, []byte("ssh-ed25519 AAAA"), 0o644)
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/echo", 200, `{}`)
	r := clitest.AgainstStubs(fa)
	r.Stdin = "from stdin"
	res := r.Run(t, "api", "POST", "/echo",
		"-F", "all=true", "-F", "off=false", "-F", "n=5", "-F", "f=-1.5e3", "-F", "nothing=null", "-F", "word=hello",
		"-F", "zip=01234", "-f", "s=true", "-F", "key=@"+keyFile, "-F", "in=@-",
		"-F", "disk[][size]=8", "-f", "disk[][base]=debian:12", "-F", "disk[][size]=20",
		"-F", "tags[]=a", "-f", "tags[]=b", "-F", "a[b][c]=1")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(fa.LastBody("POST", "/echo")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"all": true, "off": false, "n": 5.0, "f": -1500.0, "nothing": nil, "word": "hello", "zip": "01234", "s": "true",
		"key": "ssh-ed25519 AAAA", "in": "from stdin",
		"disk": []any{map[string]any{"size": 8.0, "base": "debian:12"}, map[string]any{"size": 20.0}},
		"tags": []any{"a", "b"},
		"a":    map[string]any{"b": map[string]any{"c": 1.0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body\n got %#v\nwant %#v", got, want)
	}
}

func TestAPIFieldsOnGetGoInTheBody(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	if res := clitest.AgainstStubs(fa).Run(t, "api", "GET", "/instances", "-F", "all=true"); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("GET", "/instances"); got != `{"all":true}` {
		t.Errorf("body %q", got)
	}
}

func TestAPIInput(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/instances", 200, clitest.CreatedInstance("raw1", "created"))
	r := clitest.AgainstStubs(fa)
	r.Stdin = `{"name": "raw1", "cpus": 1, "memory": 512, "disk": [{"size": 8}]}`
	res := r.Run(t, "api", "POST", "/instances", "--input", "-")
	if res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("POST", "/instances"); got != r.Stdin {
		t.Errorf("body %q, want the input byte for byte", got)
	}
}

func TestAPIErrorsKeepTheirExitCodes(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/nosuch", 404, `{"error":"instance not found","status":404}`)
	fa.Canned("POST", "/instances", clitest.TransientRefusal("15"))
	res := clitest.AgainstStubs(fa).Run(t, "api", "GET", "/instances/nosuch")
	if res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
	if res.Stdout != `{"error":"instance not found","status":404}`+"\n" {
		t.Errorf("the error's JSON body belongs on stdout: %q", res.Stdout)
	}
	if !strings.HasPrefix(res.Stderr, "error: GET /instances/nosuch: 404 Not Found: instance not found\n") {
		t.Errorf("stderr %q", res.Stderr)
	}

	res = clitest.AgainstStubs(fa).Run(t, "api", "POST", "/instances", "-f", "name=x", "-o", "json")
	if res.Code != cmdutil.ExitCapacityTransient {
		t.Fatal(res)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(res.Stderr), &obj); err != nil || obj["stage"] != "sufficient_idle_cpu" || obj["transient"] != true {
		t.Errorf("stderr %q", res.Stderr)
	}
	if !json.Valid([]byte(res.Stdout)) {
		t.Errorf("-o json: stdout is not JSON: %q", res.Stdout)
	}
}

func TestAPIUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"api", "G3T", "/x"}, `METHOD "G3T" is not an HTTP method`},
		{[]string{"api", "GET", "http://evil.example/instances"}, `must be relative to the API URL`},
		{[]string{"api", "GET", "/a b"}, `contains white space`},
		{[]string{"api", "GET"}, `api needs METHOD PATH (got 1 argument)`},
		{[]string{"api", "POST", "/x", "-F", "novalue"}, `-F "novalue": want KEY=VALUE`},
		{[]string{"api", "POST", "/x", "-F", "=v"}, `malformed key`},
		{[]string{"api", "POST", "/x", "-F", "a[b=1"}, `malformed key`},
		{[]string{"api", "POST", "/x", "-F", "a=1", "-F", "a=2"}, `a is given twice`},
		{[]string{"api", "POST", "/x", "-F", "a=1", "-F", "a[b]=2"}, `a is both an object and something else`},
		{[]string{"api", "POST", "/x", "-F", "f=@/nonexistent"}, `cannot read -F /nonexistent: no such file or directory`},
		{[]string{"api", "POST", "/x", "--input", bad}, `is not valid JSON`},
		{[]string{"api", "POST", "/x", "--input", bad, "-F", "a=1"}, `--input and -F/-f both give the body`},
	}
	for _, c := range cases {
		fa := clitest.NewStubs(t)
		res := clitest.AgainstStubs(fa).Run(t, c.args...)
		if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%v: %s", c.args, res)
		}
		if len(fa.Requests()) != 0 {
			t.Errorf("%v: a request was sent", c.args)
		}
	}
}

// Every @FILE / - input reads through one reader: --input @- reads stdin,
// and two inputs cannot both claim it.
func TestAPIStdinIsReadOnce(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/instances", 200, clitest.CreatedInstance("web9", "initial"))
	r := clitest.AgainstStubs(fa)
	r.Stdin = `{"name":"web9"}`
	if res := r.Run(t, "api", "POST", "/instances", "--input", "@-"); res.Code != 0 || !strings.Contains(fa.LastBody("POST", "/instances"), "web9") {
		t.Errorf("--input @-: %s", res)
	}
	r.Stdin = `{"name":"web10"}`
	if res := r.Run(t, "api", "POST", "/instances", "--body", "@-"); res.Code != 0 || !strings.Contains(fa.LastBody("POST", "/instances"), "web10") {
		t.Errorf("--body @-: %s", res)
	}
	res := r.Run(t, "api", "POST", "/instances", "-F", "a=@-", "-F", "b=@-")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "only once") {
		t.Errorf("two stdin inputs: %s", res)
	}
}
