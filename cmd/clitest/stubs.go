package clitest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/httpstub"
)

// Stubs is the stub registry a command test takes canned answers from
// (internal/httpstub): the fake cloud's login, and the answers the test
// registers. Behaviour (state that changes, waits, refusals) is the
// in-process simulator's: SimCluster.
type Stubs struct {
	*httpstub.Registry
}

// NewStubs is a registry whose POST /auth answers TestToken to
// TestNamespace and TestKey, as often as the commands log in, and 401 to
// any other credentials.
func NewStubs(t *testing.T) *Stubs { return NewStubsAs(t, TestNamespace) }

// NewStubsAs is NewStubs whose login takes TestKey for namespace instead
// (the system namespace's key: "system"); run the commands with
// CmdRun.As(namespace).
func NewStubsAs(t *testing.T, namespace string) *Stubs {
	s := &Stubs{httpstub.New(t)}
	creds := httpstub.REST("POST", "/auth").Body("the test namespace and key", func(body []byte) bool {
		var c struct{ Namespace, Key string }
		return json.Unmarshal(body, &c) == nil && c.Namespace == namespace && c.Key == TestKey
	})
	s.Register(creds,
		httpstub.String(200, `{"access_token": "`+TestToken+`", "token_type": "Bearer", "expires_in": 900}`)).Always().Optional()
	// Any other namespace and key are refused, as the real server does.
	s.Register(httpstub.REST("POST", "/auth"), httpstub.Error(401, "unauthorized")).Always().Optional()
	return s
}

// NewFixtureStubs is NewStubs offering the fake cloud's lists (GET
// /instances, /networks, /nodes, /auth/namespaces) and its objects by
// name, for the tests that read several of them.
func NewFixtureStubs(t *testing.T, instances ...json.RawMessage) *Stubs {
	s := NewStubs(t)
	if instances == nil {
		instances = FixtureInstances
	}
	lists := map[string][]json.RawMessage{"/instances": instances, "/networks": FixtureNetworks, "/nodes": FixtureNodes, "/auth/namespaces": FixtureNamespaces}
	for path, items := range lists {
		s.Offer("GET", path, 200, string(JoinRaw(items)))
		for _, raw := range items {
			var o struct{ Name string }
			_ = json.Unmarshal(raw, &o)
			s.Offer("GET", path+"/"+o.Name, 200, string(raw))
		}
	}
	return s
}

// Route matches an authenticated request: method, path and the test
// token.
func Route(method, path string) httpstub.Matcher {
	return httpstub.REST(method, path).Header("Authorization", "Bearer "+TestToken)
}

// Reply answers every authenticated method path request with status and
// body (a JSON body, or text with a Content-Type of its own given by
// ReplyWith); at least one must come.
func (s *Stubs) Reply(method, path string, status int, body string) *httpstub.Stub {
	return s.Register(Route(method, path), httpstub.String(status, body)).Always()
}

// Offer answers every authenticated method path request with status and
// body, and may go unused: an entry of a table of recorded answers that
// several tests share, each asking for some of them.
func (s *Stubs) Offer(method, path string, status int, body string) *httpstub.Stub {
	return s.Reply(method, path, status, body).Optional()
}

// ReplyWith is Reply with headers.
func (s *Stubs) ReplyWith(method, path string, status int, header http.Header, body string) *httpstub.Stub {
	return s.Register(Route(method, path), httpstub.Answer(status, header, body)).Always()
}

// ReplyJSON answers every authenticated method path request with v.
func (s *Stubs) ReplyJSON(method, path string, v any) *httpstub.Stub {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return s.Reply(method, path, 200, string(b))
}

// ReplyRecorded answers every method path request with a recorded real
// answer of client/testdata (ReadGolden's names).
func (s *Stubs) ReplyRecorded(t *testing.T, method, path string, status int, name string) *httpstub.Stub {
	t.Helper()
	return s.Reply(method, path, status, ReadGolden(t, name))
}

// ReplyRecordedAnswer answers every authenticated method path request
// with an answer the real server sent, recorded whole (client/testdata's
// name, an .http file: status line, headers, body): its status, body and
// Content-Type and X-Request-ID headers as sent.
func (s *Stubs) ReplyRecordedAnswer(t *testing.T, method, path, name string) *httpstub.Stub {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(ReadGolden(t, name))), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	h := http.Header{}
	for _, k := range []string{"Content-Type", "X-Request-ID"} {
		if v := resp.Header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	return s.ReplyWith(method, path, resp.StatusCode, h, string(body))
}

// NeverPlacedStubs is a 2024 server on which instance "big" was refused
// by the scheduler, answering as the real one did (captures
// commands/e0-e3, v4, v6; client/testdata/sf2024/instance_never_placed.json,
// its view with node null, and recorded/console-noplace.http and
// vdi-helper-noplace.http, the 200 null of its console routes).
func NeverPlacedStubs(t *testing.T) *Stubs {
	s := NewStubs(t)
	s.Root(ReadGolden(t, "sf2024/root.html"))
	s.ReplyRecorded(t, "GET", "/instances/big", 200, "sf2024/instance_never_placed.json").Optional()
	s.ReplyRecordedAnswer(t, "GET", "/instances/big/consoledata", "sf2024/recorded/console-noplace.http").Optional()
	s.ReplyRecordedAnswer(t, "GET", "/instances/big/vdiconsolehelper", "sf2024/recorded/vdi-helper-noplace.http").Optional()
	return s
}

// Root answers the unauthenticated GET / with page, the capability list
// client.Capabilities reads; it may go unused.
func (s *Stubs) Root(page string) *httpstub.Stub {
	return s.Register(httpstub.REST("GET", "/"), httpstub.Answer(200, http.Header{"Content-Type": {"text/html"}}, page)).Always().Optional()
}

// Logins is how many times the commands logged in.
func (s *Stubs) Logins() int { return s.Count("POST", "/auth") }

// Canned answers every authenticated method path request with a canned
// answer (RecordedRefusal, Refusal).
func (s *Stubs) Canned(method, path string, r CannedReply) *httpstub.Stub {
	return s.Register(Route(method, path), r.Answer()).Always()
}

// Answer is r as the registry's responder.
func (r CannedReply) Answer() httpstub.Responder {
	h := http.Header{}
	for k, v := range r.Header {
		h.Set(k, v)
	}
	return httpstub.Answer(r.Status, h, r.Body)
}

// InTurn answers authenticated method path requests with answers in
// turn, the last one every later request too; each must be used.
func (s *Stubs) InTurn(method, path string, answers ...httpstub.Responder) {
	s.Sequence(Route(method, path), answers...)
}

// InStates is raw (an object's view) answered 200 with its state set to
// each of states in turn, for InTurn: a wait's polls.
func InStates(raw string, states ...string) []httpstub.Responder {
	var out []httpstub.Responder
	for _, st := range states {
		out = append(out, httpstub.String(200, string(patchRaw(json.RawMessage(raw), map[string]any{"state": st}))))
	}
	return out
}

// Bodies are the bodies of the method path requests, in order.
func (s *Stubs) Bodies(method, path string) []string {
	var out []string
	for _, q := range s.Requests() {
		if q.Method == method && q.Path == path {
			out = append(out, string(q.Body))
		}
	}
	return out
}

// LastBody is the body of the last method path request.
func (s *Stubs) LastBody(method, path string) string { return string(s.Last(method, path).Body) }

// As is the runner authenticating to namespace (with TestKey).
func (c CmdRun) As(namespace string) CmdRun {
	env := map[string]string{}
	for k, v := range c.Env {
		env[k] = v
	}
	env["SHAKENFIST_NAMESPACE"] = namespace
	c.Env = env
	return c
}

// AgainstStubs returns a runner for the registry on a loopback httptest
// server.
func AgainstStubs(s *Stubs) CmdRun { return CmdRun{Url: s.Serve()} }

// StubsInMemory returns a runner whose API calls reach the registry
// without sockets, for tests on the virtual clock of testing/synctest.
func StubsInMemory(s *Stubs) CmdRun { return CmdRun{Url: "http://sf.test", Transport: s.Registry} }
