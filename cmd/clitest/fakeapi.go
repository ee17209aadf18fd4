package clitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

type RecordedRequest struct {
	Method string
	Path   string
	Body   string
	Header http.Header
}

// FakeAPI speaks the Shakenfist wire contract (external_api/*.py at develop
// da448b1a; SOURCES.md names each recorded answer), spelt out
// here independently of the client: /auth, instances, networks, nodes and
// namespaces, with canned replies for the cases under test.
type FakeAPI struct {
	t *testing.T

	mu         sync.Mutex
	Instances  []json.RawMessage
	networks   []json.RawMessage
	Nodes      []json.RawMessage
	namespaces []json.RawMessage
	events     json.RawMessage

	// createReplies answer POST /instances in turn before any create
	// succeeds (refusals, retries).
	CreateReplies []FakeReply
	// createState is the state of a created instance ("initial" if "").
	CreateState string
	// getStates are the states GET /instances/{ref} reports in turn (the
	// last one sticks), for waits.
	GetStates []string
	// latency is how long the fake takes to answer a "METHOD /path" (on
	// the virtual clock inside a synctest bubble); a request whose context
	// ends first gets no answer.
	Latency map[string]time.Duration
	// override answers a "METHOD /path" before anything else.
	Override map[string]FakeReply
	// RootPage, when set, is the unauthenticated GET / page, which lists
	// the server's capabilities (client.Capabilities reads it).
	RootPage string
	// expireTokenOnce answers the next authenticated request with a 401,
	// as an expired token is.
	ExpireTokenOnce bool

	requests []RecordedRequest
	Logins   int
	// networkPolls counts the GETs of an initial network.
	networkPolls int
}

func NewFakeAPI(t *testing.T) *FakeAPI {
	return &FakeAPI{
		t:          t,
		Instances:  slices.Clone(FixtureInstances),
		networks:   slices.Clone(FixtureNetworks),
		Nodes:      slices.Clone(FixtureNodes),
		namespaces: slices.Clone(FixtureNamespaces),
		events:     FixtureEvents,
	}
}

func (fa *FakeAPI) reply(w http.ResponseWriter, r FakeReply) {
	for k, v := range r.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(r.Status)
	io.WriteString(w, r.Body)
}

func (fa *FakeAPI) errorReply(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]any{"error": msg, "status": status})
	fa.reply(w, FakeReply{Status: status, Body: string(b)})
}

func (fa *FakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fa.mu.Lock()
	d := fa.Latency[r.Method+" "+r.URL.Path]
	fa.mu.Unlock()
	if d > 0 {
		// Server-side processing time, simulated: on the virtual clock
		// inside synctest this costs the test nothing.
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		}
	}
	fa.mu.Lock()
	defer fa.mu.Unlock()
	fa.requests = append(fa.requests, RecordedRequest{Method: r.Method, Path: r.URL.Path, Body: string(body), Header: r.Header.Clone()})
	w.Header().Set("X-Request-ID", fmt.Sprintf("req-%04d", len(fa.requests)))

	if r.Method == http.MethodGet && r.URL.Path == "/" && fa.RootPage != "" {
		fa.reply(w, FakeReply{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: fa.RootPage})
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/auth" {
		var creds struct{ Namespace, Key string }
		if json.Unmarshal(body, &creds) != nil || creds.Namespace != TestNamespace || creds.Key != TestKey {
			fa.errorReply(w, http.StatusUnauthorized, "unauthorized")
			return
		}
		fa.Logins++
		fa.reply(w, FakeReply{Status: 200, Body: `{"access_token": "` + TestToken + `", "token_type": "Bearer", "expires_in": 900}`})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+TestToken || fa.ExpireTokenOnce {
		fa.ExpireTokenOnce = false
		if !strings.Contains(r.Header.Get("Accept"), "application/json") {
			w.Header().Set("Location", "/")
			w.WriteHeader(http.StatusFound)
			return
		}
		fa.errorReply(w, http.StatusUnauthorized, "unauthorized")
		return
	}
	if rep, ok := fa.Override[r.Method+" "+r.URL.Path]; ok {
		fa.reply(w, rep)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/instances" && r.Method == http.MethodGet:
		fa.reply(w, FakeReply{Status: 200, Body: string(JoinRaw(fa.Instances))})
	case r.URL.Path == "/instances" && r.Method == http.MethodPost:
		if len(fa.CreateReplies) > 0 {
			rep := fa.CreateReplies[0]
			fa.CreateReplies = fa.CreateReplies[1:]
			fa.reply(w, rep)
			return
		}
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			fa.errorReply(w, 400, "request body is not JSON")
			return
		}
		state := fa.CreateState
		if state == "" {
			state = "initial"
		}
		inst := map[string]any{"uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", len(fa.Instances)+1), "name": req["name"],
			"namespace": TestNamespace, "cpus": req["cpus"], "memory": req["memory"], "node": "", "state": state, "power_state": "", "version": 1}
		raw, _ := json.Marshal(inst)
		fa.Instances = append(fa.Instances, raw)
		fa.reply(w, FakeReply{Status: 200, Body: string(raw)})
	case parts[0] == "instances" && len(parts) >= 2:
		i := fa.findLocked(fa.Instances, parts[1], "uuid", "name")
		if i < 0 {
			fa.errorReply(w, 404, "instance not found")
			return
		}
		switch {
		case len(parts) == 2 && r.Method == http.MethodGet:
			if len(fa.GetStates) > 0 {
				fa.Instances[i] = patchRaw(fa.Instances[i], map[string]any{"state": fa.GetStates[0]})
				if len(fa.GetStates) > 1 {
					fa.GetStates = fa.GetStates[1:]
				}
			}
			fa.reply(w, FakeReply{Status: 200, Body: string(fa.Instances[i])})
		case len(parts) == 2 && r.Method == http.MethodDelete:
			// 200 with the instance as it was; it is deleted afterwards.
			was := fa.Instances[i]
			fa.Instances[i] = patchRaw(fa.Instances[i], map[string]any{"state": "deleted", "power_state": "off"})
			fa.reply(w, FakeReply{Status: 200, Body: string(was)})
		case len(parts) == 3 && parts[2] == "events" && r.Method == http.MethodGet:
			fa.reply(w, FakeReply{Status: 200, Body: string(fa.events)})
		case len(parts) == 3 && r.Method == http.MethodPost:
			power := map[string]string{"poweron": "on", "poweroff": "off", "rebootsoft": "on", "reboothard": "on", "pause": "paused", "unpause": "on"}[parts[2]]
			if power == "" {
				fa.errorReply(w, 404, "no such action")
				return
			}
			fa.Instances[i] = patchRaw(fa.Instances[i], map[string]any{"power_state": power})
			// The handlers return None: 200 with body null.
			fa.reply(w, FakeReply{Status: 200, Body: "null"})
		default:
			fa.errorReply(w, 405, "method not allowed")
		}
	case r.URL.Path == "/networks" && r.Method == http.MethodGet:
		fa.reply(w, FakeReply{Status: 200, Body: string(JoinRaw(fa.networks))})
	case r.URL.Path == "/networks" && r.Method == http.MethodPost:
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		req["uuid"] = "2f1e0d9c-1111-4222-8333-4444555566ff"
		// A new network is "initial"; the next GET finds it created.
		req["state"] = "initial"
		req["vxlan_id"] = 99
		if req["namespace"] == nil {
			req["namespace"] = TestNamespace
		}
		raw, _ := json.Marshal(req)
		fa.networks = append(fa.networks, raw)
		fa.reply(w, FakeReply{Status: 200, Body: string(raw)})
	case parts[0] == "networks" && len(parts) == 2:
		i := fa.findLocked(fa.networks, parts[1], "uuid", "name")
		if i < 0 {
			fa.errorReply(w, 404, "network not found")
			return
		}
		if r.Method == http.MethodDelete {
			was := fa.networks[i]
			fa.networks[i] = patchRaw(fa.networks[i], map[string]any{"state": "deleted"})
			fa.reply(w, FakeReply{Status: 200, Body: string(was)})
			return
		}
		var n struct{ State string }
		_ = json.Unmarshal(fa.networks[i], &n)
		if n.State == "initial" {
			// The network node deploys it: created on the second poll.
			fa.networkPolls++
			if fa.networkPolls >= 2 {
				fa.networks[i] = patchRaw(fa.networks[i], map[string]any{"state": "created"})
			}
		}
		fa.reply(w, FakeReply{Status: 200, Body: string(fa.networks[i])})
	case r.URL.Path == "/nodes":
		fa.reply(w, FakeReply{Status: 200, Body: string(JoinRaw(fa.Nodes))})
	case parts[0] == "nodes" && len(parts) == 2:
		i := fa.findLocked(fa.Nodes, parts[1], "name")
		if i < 0 {
			fa.errorReply(w, 404, "node not found")
			return
		}
		fa.reply(w, FakeReply{Status: 200, Body: string(fa.Nodes[i])})
	case r.URL.Path == "/auth/namespaces" && r.Method == http.MethodGet:
		fa.reply(w, FakeReply{Status: 200, Body: string(JoinRaw(fa.namespaces))})
	case len(parts) == 3 && parts[0] == "auth" && parts[1] == "namespaces" && r.Method == http.MethodGet:
		i := fa.findLocked(fa.namespaces, parts[2], "name")
		if i < 0 {
			fa.errorReply(w, 404, "namespace not found")
			return
		}
		fa.reply(w, FakeReply{Status: 200, Body: string(fa.namespaces[i])})
	default:
		fa.errorReply(w, 404, "no such route")
	}
}

// Reply answers "METHOD /path" with status and body from now on.
func (fa *FakeAPI) Reply(method, path string, status int, body string) {
	fa.mu.Lock()
	defer fa.mu.Unlock()
	if fa.Override == nil {
		fa.Override = map[string]FakeReply{}
	}
	fa.Override[method+" "+path] = FakeReply{Status: status, Body: body}
}

func (fa *FakeAPI) findLocked(items []json.RawMessage, ref string, keys ...string) int {
	for i, raw := range items {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		for _, k := range keys {
			if m[k] == ref {
				return i
			}
		}
	}
	return -1
}

func (fa *FakeAPI) Recorded() []RecordedRequest {
	fa.mu.Lock()
	defer fa.mu.Unlock()
	return append([]RecordedRequest(nil), fa.requests...)
}

// lastRequest is the last request other than the login.
func (fa *FakeAPI) LastRequest(method, path string) RecordedRequest {
	fa.t.Helper()
	reqs := fa.Recorded()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == method && reqs[i].Path == path {
			return reqs[i]
		}
	}
	fa.t.Fatalf("no %s %s request was sent", method, path)
	return RecordedRequest{}
}

func (fa *FakeAPI) Count(method, path string) int {
	n := 0
	for _, r := range fa.Recorded() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// handlerTransport serves requests in memory, without sockets, so that a
// command can run inside a testing/synctest bubble on the virtual clock.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	// A server always sees a body, if an empty one.
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	in.Body.Close()
	if err := req.Context().Err(); err != nil {
		// The caller gave up while the server was still working.
		return nil, err
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// Serve starts an httptest server for the fake API.
func (fa *FakeAPI) Serve() string {
	srv := httptest.NewServer(fa)
	fa.t.Cleanup(srv.Close)
	return srv.URL
}

// Against returns a runner for a fake API on a loopback httptest server.
func Against(fa *FakeAPI) CmdRun { return CmdRun{Url: fa.Serve()} }

// GoldenFormats runs a list or show command in each output format and
// compares the output with testdata/NAME_FORMAT.golden. Table output is
// taken on a (pretend) terminal without colour; piped, table must print
// exactly what simple prints.
func GoldenFormats(t *testing.T, fa *FakeAPI, name string, args ...string) {
	t.Helper()
	GoldenFormatsOf(t, Against(fa), name, args...)
}

// InMemory returns a runner whose API calls never leave the process, for
// tests on the virtual clock of testing/synctest.
func InMemory(fa *FakeAPI) CmdRun {
	return CmdRun{Url: "http://sf.test", Transport: handlerTransport{fa}}
}
