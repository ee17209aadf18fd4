package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
)

// Each error body of client/testdata/errors.json is what the real server
// (shakenfist da448b1a) or a seed-004 server sends; the hint and the exit
// code come from the body, not from the status alone.
func TestRealErrorBodiesChooseHintAndExitCode(t *testing.T) {
	var cases []struct {
		Name, Method, Path string
		Status             int
		Body               json.RawMessage
		Exit               int
		Hint               string
	}
	if err := json.Unmarshal([]byte(readGolden(t, "errors.json")), &cases); err != nil {
		t.Fatal(err)
	}
	commands := map[string][]string{
		"POST /instances":                 {"instance", "create", "web1", "1", "1024", "-d", "8", "--async", "continue"},
		"GET /instances/web9":             {"instance", "show", "web9"},
		"POST /instances/web1/rebootsoft": {"instance", "reboot", "web1"},
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			fa := newFakeAPI(t)
			fa.override = map[string]fakeReply{c.Method + " " + c.Path: {status: c.Status, body: string(c.Body)}}
			args, ok := commands[c.Method+" "+c.Path]
			if !ok {
				t.Fatalf("no command for %s %s", c.Method, c.Path)
			}
			res := against(fa).run(t, args...)
			if res.code != c.Exit {
				t.Errorf("exit %d, want %d\n%s", res.code, c.Exit, res)
			}
			if !strings.Contains(res.stderr, "hint: ") || !strings.Contains(res.stderr[strings.Index(res.stderr, "hint: "):], c.Hint) {
				t.Errorf("hint does not say %q:\n%s", c.Hint, res.stderr)
			}
		})
	}
}

func TestUnknownNamespaceAtLoginIsAnAuthFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		w.Write([]byte(`{"error": "namespace not found", "status": 404}`))
	}))
	defer srv.Close()
	res := cmdRun{url: srv.URL}.run(t, "instance", "list")
	if res.code != ExitAuth || !strings.Contains(res.stderr, "does not know the namespace") {
		t.Fatal(res)
	}
}

func TestHTMLAnswerIsNotAShakenfistAPI(t *testing.T) {
	// http://host:13000/api: gunicorn serves the routes at /, so Flask
	// answers every /api/... with its HTML 404.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(404)
		w.Write([]byte(readGolden(t, "flask_404.html")))
	}))
	defer srv.Close()
	res := cmdRun{url: srv.URL + "/api"}.run(t, "instance", "list")
	if res.code != ExitFailure || !strings.Contains(res.stderr, "hint: this is not a Shakenfist API") ||
		!strings.Contains(res.stderr, "http://HOST/api (behind Apache) or http://HOST:13000") {
		t.Fatal(res)
	}
}

func TestAPIURLWithoutSchemeIsAUsageError(t *testing.T) {
	res := cmdRun{url: "127.0.0.1:13000"}.run(t, "instance", "list")
	if res.code != ExitUsage || !strings.Contains(res.stderr, "the scheme is missing") {
		t.Fatal(res)
	}
}

func TestInstanceEventsFlags(t *testing.T) {
	fa := newFakeAPI(t)
	res := against(fa).run(t, "instance", "events", "web1", "--type", "audit", "--limit", "10", "-o", "json")
	if res.code != 0 {
		t.Fatal(res)
	}
	if got := fa.lastRequest("GET", "/instances/web1/events").Body; got != `{"event_type":"audit","limit":10}` {
		t.Errorf("body %s", got)
	}
	var events []map[string]any
	if json.Unmarshal([]byte(res.stdout), &events) != nil || len(events) != 2 || events[0]["type"] != "audit" || events[0]["extra"] == nil {
		t.Errorf("-o json is not the server's objects: %s", res.stdout)
	}
	if res := against(fa).run(t, "instance", "events", "web1", "--type", "bogus"); res.code != ExitUsage {
		t.Error(res)
	}
}

// The README's walk-through, against a fake that speaks the real shapes:
// a network that is initial until its second poll, a create refused 406
// until then, power actions answered null, a 409 for rebooting a
// powered-off instance, deletes answered with the view as it was.
func TestREADMEWalkThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		r := inMemory(fa)
		step := func(want int, args ...string) runResult {
			t.Helper()
			res := r.run(t, args...)
			if res.code != want {
				t.Fatalf("%v: exit %d, want %d\n%s", args, res.code, want, res)
			}
			return res
		}
		res := step(0, "network", "create", "mynet", "10.0.0.0/24", "-o", "simple")
		if !strings.Contains(res.stdout, "state\tcreated\n") || fa.count("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff") != 2 {
			t.Fatalf("network create did not wait for created:\n%s", res)
		}
		fa.createReplies = []fakeReply{{status: 406, body: `{"error": "network mynet is not ready (initial)", "status": 406}`}}
		step(ExitFailure, "instance", "create", "web9", "1", "1024", "-d", "8@debian:12", "-n", "mynet", "--async", "continue")
		if fa.count("POST", "/instances") != 1 {
			// --async continue: no time to repeat the 406.
			t.Fatalf("continue repeated the 406")
		}
		fa.createReplies = []fakeReply{{status: 406, body: `{"error": "network mynet is not ready (initial)", "status": 406}`}}
		fa.createState = "created"
		res = step(0, "instance", "create", "web9", "1", "1024", "-d", "8@debian:12", "-n", "mynet")
		if !strings.Contains(res.stderr, "network mynet is not ready (initial); retrying in 1s (") {
			t.Errorf("the 406 repeat is not visible on stderr: %q", res.stderr)
		}
		if fa.count("POST", "/instances") != 3 {
			t.Fatalf("the 406 was not repeated: %d creates", fa.count("POST", "/instances"))
		}
		if res := step(0, "instance", "poweroff", "web1"); res.stdout != "" {
			t.Errorf("poweroff printed %q", res.stdout)
		}
		fa.override = map[string]fakeReply{"POST /instances/web1/rebootsoft": {status: 409, body: `{"error": "Invalid lifecycle state: you cannot reboot a powered off instance", "status": 409}`}}
		step(ExitFailure, "instance", "reboot", "web1")
		fa.override = nil
		step(0, "instance", "poweron", "web1")
		step(0, "instance", "reboot", "web1", "--hard")
		step(0, "instance", "events", "web1")
		res = step(0, "instance", "delete", "web1", "-o", "simple")
		if !strings.Contains(res.stdout, "state\tdeleted\n") {
			t.Errorf("instance delete: %s", res)
		}
		res = step(0, "network", "delete", "mynet", "-o", "simple")
		if !strings.Contains(res.stdout, "state\tdeleted\n") {
			t.Errorf("network delete: %s", res)
		}
	})
}

func TestNetworkCreateWaitsPerAsync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		res := inMemory(fa).run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "continue", "-o", "simple")
		if res.code != 0 || !strings.Contains(res.stdout, "state\tinitial\n") || fa.count("GET", "/networks/2f1e0d9c-1111-4222-8333-4444555566ff") != 0 {
			t.Fatalf("continue: %s", res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := newFakeAPI(t)
		fa.override = map[string]fakeReply{"GET /networks/2f1e0d9c-1111-4222-8333-4444555566ff": {status: 200,
			body: strings.Replace(readGolden(t, "network_initial.json"), `"initial"`, `"error"`, 1)}}
		res := inMemory(fa).run(t, "network", "create", "mynet", "10.0.0.0/24", "--async", "block")
		if res.code != ExitFailure || !strings.Contains(res.stderr, "network net1 is in state error") || !strings.Contains(res.stderr, "shakectl network show net1") {
			t.Fatalf("error state: %s", res)
		}
	})
}
