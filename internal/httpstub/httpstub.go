// Package httpstub is the project's one fake for canned HTTP answers, a
// registry of stubs in the manner of gh's httpmock: a test registers, for
// a method and a path (and optionally what the body must hold), the
// answer to give; the registry answers requests from them in the order
// they were registered, each stub once unless it says otherwise. A stub
// no request used fails the test at cleanup, and so does a request no
// stub matches, with a message naming the request and every stub.
//
// Canned answers only: a test of behaviour (state that changes, waits,
// scheduling, refusals a real server makes) runs against the in-process
// simulator (sim/cluster) instead. Answers the repository recorded from
// real servers (client/testdata/sf2024, sf2026, …) are loaded with
// Recorded.
//
// A Registry is an http.RoundTripper (in-memory, so a test inside a
// testing/synctest bubble runs on the virtual clock) and an http.Handler
// (for httptest.NewServer, when the code under test dials a URL).
package httpstub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request the registry received.
type Request struct {
	Method, Path string
	Query        string
	Header       http.Header
	Body         []byte
	At           time.Time
}

// Registry holds the stubs of one test.
type Registry struct {
	t        testing.TB
	mu       sync.Mutex
	stubs    []*Stub
	requests []Request
}

// New returns an empty registry that verifies, when the test ends, that
// every stub was used.
func New(t testing.TB) *Registry {
	r := &Registry{t: t}
	t.Cleanup(r.verify)
	return r
}

// Matcher says which requests a stub answers.
type Matcher struct {
	method, path string
	body         func([]byte) bool
	bodyDesc     string
	header       http.Header
}

// REST matches a method and an exact path (no query).
func REST(method, path string) Matcher { return Matcher{method: method, path: path} }

// Body narrows m to requests whose body passes match; desc says what it
// looks for, for the failure messages.
func (m Matcher) Body(desc string, match func(body []byte) bool) Matcher {
	m.body, m.bodyDesc = match, desc
	return m
}

// Header narrows m to requests carrying header name with that value.
func (m Matcher) Header(name, value string) Matcher {
	h := m.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(name, value)
	m.header = h
	return m
}

// JSONFields narrows m to requests whose JSON body holds each of fields
// with that value (compared as JSON); other fields may be there too.
func (m Matcher) JSONFields(fields map[string]any) Matcher {
	want, _ := json.Marshal(fields)
	return m.Body("a JSON body holding "+string(want), func(body []byte) bool {
		var got map[string]any
		if json.Unmarshal(body, &got) != nil {
			return false
		}
		for k, v := range fields {
			a, _ := json.Marshal(v)
			b, _ := json.Marshal(got[k])
			if _, ok := got[k]; !ok || !bytes.Equal(a, b) {
				return false
			}
		}
		return true
	})
}

func (m Matcher) matches(req *http.Request, body []byte) bool {
	for k := range m.header {
		if req.Header.Get(k) != m.header.Get(k) {
			return false
		}
	}
	return m.method == req.Method && m.path == req.URL.Path && (m.body == nil || m.body(body))
}

func (m Matcher) String() string {
	s := m.method + " " + m.path
	if m.body != nil {
		s += " with " + m.bodyDesc
	}
	for k := range m.header {
		s += " with header " + k // values may be secrets: never printed
	}
	return s
}

// Responder makes the answer to a request whose body has been read.
// A nil response with an error is a transport error.
type Responder func(req *http.Request, body []byte) (*http.Response, error)

// Stub is one registered answer.
type Stub struct {
	m       Matcher
	answer  Responder
	times   int // answers left; < 0: any number
	used    int
	where   string
	checked bool
}

// Times lets the stub answer n requests, each of which must come.
func (s *Stub) Times(n int) *Stub { s.times = n; return s }

// Always lets the stub answer any number of requests; it must answer at
// least one.
func (s *Stub) Always() *Stub { s.times = -1; return s }

// Optional lets the stub go unused (an answer the code may or may not
// ask for, such as a login).
func (s *Stub) Optional() *Stub { s.checked = false; return s }

// Register adds a stub answering one request.
func (r *Registry) Register(m Matcher, answer Responder) *Stub {
	_, file, line, _ := runtime.Caller(1)
	where := fmt.Sprintf("%s:%d", filepath.Base(file), line)
	// A test's own helper registered it: name the test's line too.
	if _, file2, line2, ok := runtime.Caller(2); ok && strings.HasSuffix(file2, "_test.go") {
		where += fmt.Sprintf(" from %s:%d", filepath.Base(file2), line2)
	}
	s := &Stub{m: m, answer: answer, times: 1, where: where, checked: true}
	r.mu.Lock()
	r.stubs = append(r.stubs, s)
	r.mu.Unlock()
	return s
}

// Sequence registers answers to one method and path, given in turn; the
// last one answers every later request too.
func (r *Registry) Sequence(m Matcher, answers ...Responder) {
	for k, a := range answers {
		s := r.Register(m, a)
		if k == len(answers)-1 {
			s.Always()
		}
	}
}

// RoundTrip answers req from the first stub that matches it and has
// answers left.
func (r *Registry) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	r.mu.Lock()
	r.requests = append(r.requests, Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Header: req.Header.Clone(), Body: body, At: time.Now()})
	var stub *Stub
	for _, s := range r.stubs {
		if s.times != 0 && s.m.matches(req, body) {
			stub = s
			break
		}
	}
	if stub == nil {
		msg := r.unmatchedLocked(req.Method, req.URL.Path, body)
		r.mu.Unlock()
		r.t.Errorf("%s", msg)
		return nil, fmt.Errorf("httpstub: no stub for %s %s", req.Method, req.URL.Path)
	}
	stub.used++
	if stub.times > 0 {
		stub.times--
	}
	r.mu.Unlock()
	resp, err := stub.answer(req, body)
	if resp != nil && resp.Request == nil {
		resp.Request = req
	}
	return resp, err
}

func (r *Registry) unmatchedLocked(method, path string, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "httpstub: no stub answers %s %s", method, path)
	if len(body) > 0 {
		fmt.Fprintf(&b, " (body %.200q)", body)
	}
	b.WriteString("; the stubs:")
	if len(r.stubs) == 0 {
		b.WriteString(" none")
	}
	for _, s := range r.stubs {
		state := "used up"
		if s.times != 0 {
			state = "open"
		}
		fmt.Fprintf(&b, "\n\t%s (%s, registered at %s)", s.m, state, s.where)
	}
	return b.String()
}

// ServeHTTP answers like RoundTrip, for an httptest server; a request no
// stub answers gets 501.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	resp, err := r.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotImplemented)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// Serve starts a loopback httptest server for the registry and returns
// its URL; it closes when the test ends.
func (r *Registry) Serve() string {
	srv := httptest.NewServer(r)
	r.t.Cleanup(srv.Close)
	return srv.URL
}

func (r *Registry) verify() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var unused []string
	for _, s := range r.stubs {
		if s.checked && (s.times > 0 || s.used == 0) {
			unused = append(unused, fmt.Sprintf("\t%s (registered at %s, answered %d)", s.m, s.where, s.used))
		}
	}
	if len(unused) > 0 {
		r.t.Errorf("httpstub: %d stubs were not used:\n%s", len(unused), strings.Join(unused, "\n"))
	}
}

// Requests are the requests received so far, in order.
func (r *Registry) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Count is how many method path requests came.
func (r *Registry) Count(method, path string) int {
	n := 0
	for _, q := range r.Requests() {
		if q.Method == method && q.Path == path {
			n++
		}
	}
	return n
}

// Last is the last method path request; the test fails if none came.
func (r *Registry) Last(method, path string) Request {
	r.t.Helper()
	reqs := r.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == method && reqs[i].Path == path {
			return reqs[i]
		}
	}
	r.t.Fatalf("httpstub: no %s %s request was sent", method, path)
	return Request{}
}

// --- responders ---

// Answer is an answer's status, headers and body.
func Answer(status int, header http.Header, body string) Responder {
	return func(req *http.Request, _ []byte) (*http.Response, error) {
		h := header.Clone()
		if h == nil {
			h = http.Header{}
		}
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		return &http.Response{
			StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
			Header: h, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)),
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: req,
		}, nil
	}
}

// String answers status with a JSON body given as text.
func String(status int, body string) Responder { return Answer(status, nil, body) }

// JSON answers status with v encoded.
func JSON(status int, v any) Responder {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return String(status, string(b))
}

// Error answers Shakenfist's error shape, {"error": msg, "status": status}.
func Error(status int, msg string) Responder {
	return JSON(status, map[string]any{"error": msg, "status": status})
}

// TransportError fails the round trip with err, as a reset connection does.
func TransportError(err error) Responder {
	return func(*http.Request, []byte) (*http.Response, error) { return nil, err }
}

// Delay answers with next after d (on the virtual clock inside a
// testing/synctest bubble); a request whose context ends first gets its
// context's error.
func Delay(d time.Duration, next Responder) Responder {
	return func(req *http.Request, body []byte) (*http.Response, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		return next(req, body)
	}
}

// Handler answers with what h writes, for an answer that depends on the
// request (an echo, a body checked field by field, a stream). h sees the
// request with its body as sent.
func Handler(h http.Handler) Responder {
	return func(req *http.Request, body []byte) (*http.Response, error) {
		in := req.Clone(req.Context())
		in.Body = io.NopCloser(bytes.NewReader(body))
		in.ContentLength = int64(len(body))
		if in.RequestURI == "" {
			in.RequestURI = req.URL.RequestURI()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, in)
		resp := rec.Result()
		resp.Request = req
		return resp, nil
	}
}

// HandlerTransport carries requests straight to an http.Handler (a
// simulator's), in memory, as a server would see them: a request whose
// context ended is not served, and a caller that gave up while the handler
// worked gets its context's error. Inside a testing/synctest bubble the
// handler's timers run on the bubble's clock.
type HandlerTransport struct{ Handler http.Handler }

func (t HandlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	// A server always sees a body, if an empty one.
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	if in.RequestURI == "" {
		in.RequestURI = req.URL.RequestURI()
	}
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, in)
	in.Body.Close()
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// Recorded answers status with a file the repository recorded from a
// real server, named from the module root (e.g.
// "client/testdata/sf2024/instance_events.json"); a missing file fails the
// test at once.
func Recorded(t testing.TB, status int, name string) Responder {
	t.Helper()
	return String(status, ReadRecorded(t, name))
}

// ReadRecorded is the text of a file named from the module root.
func ReadRecorded(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("httpstub: no go.mod above the test's directory")
		}
		dir = parent
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
