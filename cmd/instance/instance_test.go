package instance_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// web1 is the fake cloud's instance web1; a wait polls it by UUID.
var web1 = string(clitest.FixtureInstances[0])

const web1UUID = "/instances/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"

func TestInstanceListGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(clitest.NewFixtureStubs(t)), "instance_list", "instance", "list")
}

func TestInstanceShowGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(clitest.NewFixtureStubs(t)), "instance_show", "instance", "show", "web1")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(clitest.NewFixtureStubs(t)), "instance_show_error", "instance", "show", "db-with-a-long-name")
}

func TestInstanceEventsGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/instances/web1/events", 200, string(clitest.FixtureEvents))
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "instance_events", "instance", "events", "web1")
}

// creates answers POST /instances with a new instance, already created.
func creates(t *testing.T, name string) *clitest.Stubs {
	s := clitest.NewStubs(t)
	s.Reply("POST", "/instances", 200, clitest.CreatedInstance(name, "created"))
	return s
}

func TestInstanceListAllSendsAllInTheBody(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "instance", "list", "--all"); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("GET", "/instances"); got != `{"all":true}` {
		t.Errorf("body %q", got)
	}
}

func TestInstanceTableColoursOnlyWhenAsked(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	r := clitest.AgainstStubs(fa)
	r.Tty, r.Colour = true, true
	res := r.Run(t, "instance", "list")
	if !strings.Contains(res.Stdout, "\x1b[32mcreated\x1b[0m") || !strings.Contains(res.Stdout, "\x1b[31mcreated-error\x1b[0m") {
		t.Errorf("no colour on a colour terminal:\n%q", res.Stdout)
	}
	res = r.Run(t, "instance", "list", "--no-color")
	if strings.Contains(res.Stdout, "\x1b[") {
		t.Errorf("--no-color still colours:\n%q", res.Stdout)
	}
	r.Env = map[string]string{"SHAKECTL_NO_COLOR": "1"}
	if res := r.Run(t, "instance", "list"); strings.Contains(res.Stdout, "\x1b[") {
		t.Errorf("SHAKECTL_NO_COLOR still colours")
	}
}

func TestInstanceCreateSendsTheServersFieldNames(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "id.pub")
	userData := filepath.Join(dir, "cloud-init.yaml")
	os.WriteFile(key, []byte("ssh-ed25519 AAAAkey me@host\n"), 0o644)
	os.WriteFile(userData, []byte("#cloud-config\npackages: [nginx]\n"), 0o644)

	fa := creates(t, "web9")
	res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "web9", "2", "2048",
		"-d", "20@debian:12", "-d", "100", "-n", "net1@10.0.0.5", "-n", "net2",
		"-i", key, "-u", userData, "-p", "node2",
		"-m", `tags=["web","prod"]`, "-m", `affinity={"require_with_tag":["ssd"]}`, "-m", "owner=me",
		"--namespace", "ns1", "-o", "json")
	if res.Code != 0 {
		t.Fatal(res)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(fa.LastBody("POST", "/instances")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "web9", "cpus": 2.0, "memory": 2048.0,
		"disk":      []any{map[string]any{"size": 20.0, "base": "debian:12"}, map[string]any{"size": 100.0}},
		"network":   []any{map[string]any{"network_uuid": "net1", "address": "10.0.0.5"}, map[string]any{"network_uuid": "net2"}},
		"ssh_key":   "ssh-ed25519 AAAAkey me@host",
		"user_data": base64.StdEncoding.EncodeToString([]byte("#cloud-config\npackages: [nginx]\n")),
		"placed_on": "node2",
		"namespace": "ns1",
		"metadata":  map[string]any{"tags": []any{"web", "prod"}, "affinity": map[string]any{"require_with_tag": []any{"ssd"}}, "owner": "me"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body\n got %#v\nwant %#v", got, want)
	}
	var printed map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &printed); err != nil || printed["name"] != "web9" {
		t.Errorf("stdout is not the created instance as JSON: %v\n%s", err, res.Stdout)
	}
}

func TestInstanceCreateOmitsUnsetOptionalFields(t *testing.T) {
	fa := creates(t, "tiny")
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "create", "tiny", "1", "512", "-d", "8"); res.Code != 0 {
		t.Fatal(res)
	}
	body := fa.LastBody("POST", "/instances")
	if body != `{"name":"tiny","cpus":1,"memory":512,"disk":[{"size":8}]}` {
		t.Errorf("body %s", body)
	}
	if strings.Contains(body, `""`) {
		t.Errorf("an empty string was sent: %s", body)
	}
}

func TestInstanceCreateBadInputIsAUsageErrorAndSendsNothing(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"web", "two", "2048"}, `CPUS must be a whole number of vCPUs, at least 1; got "two"`},
		{[]string{"web", "0", "2048"}, `CPUS must be`},
		{[]string{"web", "2", "2G"}, `MEMORY must be a whole number of MiB`},
		{[]string{"web", "2", "2048", "-d", "twenty@debian"}, `-d: invalid disk "twenty@debian"`},
		{[]string{"web", "2", "2048", "-d", "20@"}, `empty base image`},
		{[]string{"web", "2", "2048", "-n", "net1@10.0.0"}, `-n: invalid network "net1@10.0.0"`},
		{[]string{"web", "2", "2048", "-m", "tags=a,b"}, `tags must be JSON`},
		{[]string{"web", "2", "2048", "-m", "novalue"}, `want KEY=VALUE`},
		{[]string{"web", "2", "2048", "-i", "/nonexistent/key.pub"}, `cannot read --ssh-key-file /nonexistent/key.pub: no such file or directory`},
		{[]string{"web", "2", "2048", "-u", "/nonexistent/ud"}, `cannot read --user-data-file /nonexistent/ud: no such file or directory`},
		{[]string{"web", "2"}, `instance create needs NAME CPUS MEMORY (got 2 arguments)`},
		{[]string{"web", "2", "2048", "--disk"}, `flag needs an argument`},
		{[]string{"web", "2", "2048", "--bogus"}, `unknown flag: --bogus`},
		{[]string{"web", "2", "2048", "-o", "xml"}, `invalid output format "xml"`},
	}
	for _, c := range cases {
		fa := clitest.NewStubs(t)
		res := clitest.StubsInMemory(fa).Run(t, append([]string{"instance", "create"}, c.args...)...)
		if res.Code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", c.args, res.Code, res)
			continue
		}
		first, _, _ := strings.Cut(res.Stderr, "\n")
		if !strings.HasPrefix(first, "error: ") || !strings.Contains(first, c.want) {
			t.Errorf("%v: first stderr line %q, want it to say %q", c.args, first, c.want)
		}
		if strings.Contains(res.Stderr, "goroutine") || strings.Contains(res.Stderr, "panic") {
			t.Errorf("%v: stack trace on stderr:\n%s", c.args, res.Stderr)
		}
		if res.Stdout != "" {
			t.Errorf("%v: stdout %q", c.args, res.Stdout)
		}
		if n := fa.Count("POST", "/instances"); n != 0 {
			t.Errorf("%v: %d creates sent", c.args, n)
		}
	}
}

func TestInstanceCreateUserDataFromStdin(t *testing.T) {
	fa := creates(t, "web")
	r := clitest.AgainstStubs(fa)
	r.Stdin = "#!/bin/sh\necho hi\n"
	if res := r.Run(t, "instance", "create", "web", "1", "512", "-d", "8", "-u", "-"); res.Code != 0 {
		t.Fatal(res)
	}
	var body struct {
		UserData string `json:"user_data"`
	}
	json.Unmarshal([]byte(fa.LastBody("POST", "/instances")), &body)
	if raw, _ := base64.StdEncoding.DecodeString(body.UserData); string(raw) != r.Stdin {
		t.Errorf("user_data %q", body.UserData)
	}
}

func TestInstanceCreateNamespaceAlsoAuthenticatesWhenNoneIsConfigured(t *testing.T) {
	fa := creates(t, "web")
	r := clitest.AgainstStubs(fa)
	r.Env = map[string]string{"SHAKENFIST_NAMESPACE": ""}
	if res := r.Run(t, "instance", "create", "web", "1", "512", "-d", "8", "--namespace", clitest.TestNamespace); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("POST", "/auth"); !strings.Contains(got, `"namespace":"ns1"`) {
		t.Errorf("auth body does not name the namespace: %s", strings.ReplaceAll(got, clitest.TestKey, "KEY"))
	}
}

func TestInstanceActions(t *testing.T) {
	// The confirmation says what happened in words, not the route's name
	// (issue 34, item 13).
	cases := map[string]struct{ path, said string }{
		"poweron":  {"/instances/web1/poweron", "powered on"},
		"poweroff": {"/instances/web1/poweroff", "powered off"},
		"pause":    {"/instances/web1/pause", "paused"},
		"unpause":  {"/instances/web1/unpause", "unpaused"},
		"reboot":   {"/instances/web1/rebootsoft", "rebooted (soft)"},
	}
	for action, c := range cases {
		path := c.path
		fa := clitest.NewStubs(t)
		// The handlers return None: 200 with body null.
		fa.Reply("POST", path, 200, "null")
		res := clitest.AgainstStubs(fa).Run(t, "instance", action, "web1", "-o", "simple")
		if res.Code != 0 {
			t.Fatalf("%s: %s", action, res)
		}
		if fa.Count("POST", path) != 1 {
			t.Errorf("%s: no POST %s", action, path)
		}
		// The real server answers 200 null: nothing to print on stdout,
		// a confirmation on stderr.
		if res.Stdout != "" || res.Stderr != "instance web1: "+c.said+"\n" {
			t.Errorf("%s: %s", action, res)
		}
	}
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/instances/web1/reboothard", 200, "null")
	fa.Reply("POST", "/instances/nosuch/pause", 404, `{"error": "instance not found", "status": 404}`)
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "reboot", "web1", "--hard"); res.Code != 0 || fa.Count("POST", "/instances/web1/reboothard") != 1 || res.Stderr != "instance web1: rebooted (hard)\n" {
		t.Errorf("reboot --hard: %s", res)
	}
	if res := clitest.AgainstStubs(fa).Run(t, "instance", "pause", "nosuch"); res.Code != cmdutil.ExitNotFound {
		t.Errorf("pause of a missing instance: %s", res)
	}
}

// On synctest's clock, the stubs in memory: the wait's poll costs no wall
// time.
func TestInstanceDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := clitest.NewStubs(t)
		// 200 with the instance as it was; then the wait finds it deleted.
		fa.Reply("DELETE", "/instances/web1", 200, web1)
		fa.InTurn("GET", web1UUID, clitest.InStates(web1, "deleted")...)
		res := clitest.StubsInMemory(fa).Run(t, "instance", "delete", "web1", "-o", "json")
		if res.Code != 0 {
			t.Fatal(res)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || got["state"] != "deleted" {
			t.Errorf("stdout %s", res.Stdout)
		}
	})
}

func TestInstanceShowNotFound(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/instances/nosuch", 404, `{"error": "instance not found", "status": 404}`)
	res := clitest.AgainstStubs(fa).Run(t, "instance", "show", "nosuch")
	if res.Code != cmdutil.ExitNotFound {
		t.Fatalf("%s", res)
	}
	want := "error: GET /instances/nosuch: 404 Not Found: instance not found\nhint: no instance of yours has that name or UUID; \"shakectl instance list\" shows them\n"
	if res.Stderr != want {
		t.Errorf("stderr %q\nwant %q", res.Stderr, want)
	}
}

func TestCompletionOfNamesFromTheAPI(t *testing.T) {
	fa := clitest.NewFixtureStubs(t)
	r := clitest.AgainstStubs(fa)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "instance", "show", ""}, []string{"batch", "db-with-a-long-name", "web1"}},
		{[]string{"__complete", "instance", "reboot", "w"}, []string{"web1"}},
		{[]string{"__complete", "instance", "show", "web1", ""}, nil},
		{[]string{"__complete", "instance", "create", "x", "1", "512", "-n", ""}, []string{"isolated", "net1"}},
		{[]string{"__complete", "instance", "create", "x", "1", "512", "-p", "node"}, []string{"node1", "node2"}},
		{[]string{"__complete", "network", "delete", ""}, []string{"isolated", "net1"}},
		{[]string{"__complete", "node", "show", ""}, []string{"db0", "node1", "node2"}},
		{[]string{"__complete", "api", ""}, []string{"GET", "POST", "PUT", "PATCH", "DELETE"}},
	} {
		res := r.Run(t, c.args...)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
			if line == "" || strings.HasPrefix(line, ":") {
				continue
			}
			name, _, _ := strings.Cut(line, "\t")
			got = append(got, name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %q, want %q\n%s", c.args, got, c.want, res)
		}
	}
}
