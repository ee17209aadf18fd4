package httpstub_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/internal/httpstub"
)

// spy is a testing.TB that keeps what the registry reports and runs the
// cleanups when the test asks.
type spy struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (s *spy) Errorf(format string, args ...any) {
	s.errors = append(s.errors, fmt.Sprintf(format, args...))
}
func (s *spy) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }
func (s *spy) Helper()          {}
func (s *spy) end() {
	for _, f := range s.cleanups {
		f()
	}
}

func do(t *testing.T, rt http.RoundTripper, method, path, body string) (int, string, error) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://sf.test"+path, strings.NewReader(body))
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestStubsAnswerInOrderOnceEach(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	r.Register(httpstub.REST("GET", "/instances"), httpstub.String(200, "[1]"))
	r.Register(httpstub.REST("GET", "/instances"), httpstub.String(507, `{"error": "full", "status": 507}`))
	for _, want := range []string{"200 [1]", `507 {"error": "full", "status": 507}`} {
		code, body, err := do(t, r, "GET", "/instances", "")
		if got := fmt.Sprintf("%d %s", code, body); err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
	}
	s.end()
	if len(s.errors) != 0 {
		t.Errorf("every stub was used, yet: %q", s.errors)
	}
	if got := r.Count("GET", "/instances"); got != 2 {
		t.Errorf("Count %d, want 2", got)
	}
}

func TestAnUnusedStubFailsTheTest(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	r.Register(httpstub.REST("DELETE", "/networks/net1"), httpstub.String(200, "null"))
	r.Register(httpstub.REST("POST", "/auth"), httpstub.String(200, "{}")).Optional()
	s.end()
	if len(s.errors) != 1 || !strings.Contains(s.errors[0], "1 stubs were not used") ||
		!strings.Contains(s.errors[0], "DELETE /networks/net1") || !strings.Contains(s.errors[0], "httpstub_test.go:") {
		t.Errorf("want one failure naming the unused stub and where it was registered, got %q", s.errors)
	}
}

func TestAnUnmatchedRequestFailsWithTheStubsNamed(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	r.Register(httpstub.REST("GET", "/nodes"), httpstub.String(200, "[]"))
	if _, _, err := do(t, r, "GET", "/nodes", ""); err != nil {
		t.Fatal(err)
	}
	_, _, err := do(t, r, "GET", "/nodes", "")
	if err == nil {
		t.Fatal("a second request to a used-up stub was answered")
	}
	if len(s.errors) != 1 || !strings.Contains(s.errors[0], "no stub answers GET /nodes") ||
		!strings.Contains(s.errors[0], "GET /nodes (used up") {
		t.Errorf("want the request and the used-up stub named, got %q", s.errors)
	}
}

func TestBodyMatcherPicksTheStub(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	auth := httpstub.REST("POST", "/auth")
	r.Register(auth.JSONFields(map[string]any{"key": "right"}), httpstub.String(200, `{"access_token": "t"}`))
	r.Register(auth, httpstub.Error(401, "unauthorized"))
	code, body, _ := do(t, r, "POST", "/auth", `{"namespace": "system", "key": "wrong"}`)
	if code != 401 || body != `{"error":"unauthorized","status":401}` {
		t.Errorf("wrong key: %d %s", code, body)
	}
	code, _, _ = do(t, r, "POST", "/auth", `{"namespace": "system", "key": "right"}`)
	if code != 200 {
		t.Errorf("right key: %d", code)
	}
	s.end()
	if len(s.errors) != 0 {
		t.Error(s.errors)
	}
}

func TestSequenceRepeatsItsLastAnswer(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	r.Sequence(httpstub.REST("GET", "/instances/web1"), httpstub.String(200, `"initial"`), httpstub.String(200, `"created"`))
	var got []string
	for range 4 {
		_, body, _ := do(t, r, "GET", "/instances/web1", "")
		got = append(got, body)
	}
	if strings.Join(got, " ") != `"initial" "created" "created" "created"` {
		t.Errorf("got %q", got)
	}
	s.end()
	if len(s.errors) != 0 {
		t.Error(s.errors)
	}
}

// A recorded real answer goes out byte for byte, as the server sent it.
func TestRecordedAnswersAreTheRecordedBytes(t *testing.T) {
	r := httpstub.New(t)
	const name = "client/testdata/sf2024/instance_events.json"
	r.Register(httpstub.REST("GET", "/instances/x/events"), httpstub.Recorded(t, 200, name))
	_, body, err := do(t, r, "GET", "/instances/x/events", "")
	want, rerr := os.ReadFile("../../" + name)
	if err != nil || rerr != nil || body != string(want) {
		t.Errorf("answer differs from %s (%v, %v)", name, err, rerr)
	}
}

func TestServedOverLoopback(t *testing.T) {
	r := httpstub.New(t)
	r.Register(httpstub.REST("GET", "/"), httpstub.Answer(200, http.Header{"Content-Type": {"text/html"}}, "<html>"))
	resp, err := http.Get(r.Serve() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "<html>" || resp.Header.Get("Content-Type") != "text/html" {
		t.Errorf("%d %q %q", resp.StatusCode, b, resp.Header.Get("Content-Type"))
	}
}

func TestDelayEndsWithTheRequestsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := httpstub.New(t)
		r.Register(httpstub.REST("GET", "/slow"), httpstub.Delay(time.Minute, httpstub.String(200, "null")))
		r.Register(httpstub.REST("GET", "/slow"), httpstub.Delay(time.Minute, httpstub.String(200, "null")))
		start := time.Now()
		if code, _, err := do(t, r, "GET", "/slow", ""); err != nil || code != 200 || time.Since(start) != time.Minute {
			t.Errorf("%d %v after %v", code, err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://sf.test/slow", nil)
		if _, err := r.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want the deadline", err)
		}
	})
}

func TestHandlerAnswersWhatTheHandlerWrites(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	r.Register(httpstub.REST("POST", "/echo"), httpstub.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		w.Header().Set("X-Seen", req.Method+" "+req.URL.Path)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "got %s", b)
	}))).Times(2)
	for _, in := range []string{"one", "two"} {
		code, body, err := do(t, r, "POST", "/echo", in)
		if err != nil || code != http.StatusCreated || body != "got "+in {
			t.Errorf("%q: %d %q %v", in, code, body, err)
		}
	}
	// The registry still has the body the handler read.
	if got := string(r.Last("POST", "/echo").Body); got != "two" {
		t.Errorf("recorded body %q", got)
	}
	s.end()
	if len(s.errors) != 0 {
		t.Errorf("%q", s.errors)
	}
}

// register is a test's helper that registers a stub for its callers.
func register(r *httpstub.Registry, path string) {
	r.Register(httpstub.REST("GET", path), httpstub.String(200, "[]"))
}

func TestAnUnusedStubNamesTheHelpersCaller(t *testing.T) {
	s := &spy{TB: t}
	r := httpstub.New(s)
	register(r, "/nodes")
	_, _, line, _ := runtime.Caller(0)
	s.end()
	if len(s.errors) != 1 || !strings.Contains(s.errors[0], fmt.Sprintf("from httpstub_test.go:%d", line-1)) {
		t.Errorf("want the helper's caller named, got %q", s.errors)
	}
}

func TestHandlerTransportServesInMemory(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %q", r.Method, r.RequestURI, b)
	})
	code, body, err := do(t, httpstub.HandlerTransport{Handler: h}, "PUT", "/a?b=1", "x")
	if err != nil || code != 200 || body != `PUT /a?b=1 "x"` {
		t.Errorf("%d %q %v", code, body, err)
	}
	// A request whose context has ended is not served.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://sf.test/", nil)
	if _, err := (httpstub.HandlerTransport{Handler: h}).RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
}
