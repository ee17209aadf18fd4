package client_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/retry"
)

const (
	testKey   = "sekrit-key-4f1d9c"
	testToken = "tok-SECRET-"
)

// answer is one canned answer to POST /instances.
type answer struct {
	status int
	header map[string]string
	body   string
	err    error         // a transport error instead of an answer
	delay  time.Duration // simulated round trip (virtual time under synctest)
}

// expired401 is the answer to a request whose token has expired.
var expired401 = answer{status: 401, body: `{"error": "token expired", "status": 401}`}

func (a answer) responder() httpstub.Responder {
	var r httpstub.Responder
	if a.err != nil {
		r = httpstub.TransportError(a.err)
	} else {
		h := http.Header{}
		for k, v := range a.header {
			h.Set(k, v)
		}
		r = httpstub.Answer(a.status, h, a.body)
	}
	if a.delay > 0 {
		r = httpstub.Delay(a.delay, r)
	}
	return r
}

// logins is the Shakenfist login every client stub set answers with: a
// fresh token per login to the test key in namespace system, 401 to other
// credentials or to a login refuse names (by number, from 1).
type logins struct {
	mu     sync.Mutex
	n      int
	token  string
	refuse func(n int) bool
}

func (l *logins) answer(req *http.Request, body []byte) (*http.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	var creds map[string]string
	_ = json.Unmarshal(body, &creds)
	if creds["key"] != testKey || creds["namespace"] != "system" || (l.refuse != nil && l.refuse(l.n)) {
		return httpstub.Error(401, "unauthorized")(req, body)
	}
	l.token = fmt.Sprintf("%s%d", testToken, l.n)
	return httpstub.String(200, fmt.Sprintf(`{"access_token": %q, "token_type": "Bearer", "expires_in": 900}`, l.token))(req, body)
}

// current says whether req carries the latest token.
func (l *logins) current(req *http.Request) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.token != "" && req.Header.Get("Authorization") == "Bearer "+l.token
}

// expire forgets the current token: the next API request gets 401.
func (l *logins) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.token = "expired"
}

// createStubs is a stub registry for the retry tests: the logins, and one
// route (POST /instances for newCreateStubs) getting the answers in turn,
// each exactly once; every request must carry the latest token.
type createStubs struct {
	*httpstub.Registry
	logins
}

func newCreateStubs(t *testing.T, answers ...answer) *createStubs {
	return newStubs(t, httpstub.REST("POST", "/instances"), answers...)
}

func newStubs(t *testing.T, route httpstub.Matcher, answers ...answer) *createStubs {
	f := &createStubs{Registry: httpstub.New(t)}
	f.Register(httpstub.REST("POST", "/auth"), f.logins.answer).Always()
	for _, a := range answers {
		next := a.responder()
		f.Register(route, func(req *http.Request, body []byte) (*http.Response, error) {
			if !f.current(req) {
				t.Errorf("%s with Authorization %q, want the latest token", route, req.Header.Get("Authorization"))
			}
			return next(req, body)
		})
	}
	return f
}

// apiRequests are the requests other than logins.
func (f *createStubs) apiRequests() []httpstub.Request {
	var out []httpstub.Request
	for _, r := range f.Requests() {
		if r.Path != "/auth" {
			out = append(out, r)
		}
	}
	return out
}

func (f *createStubs) loginCount() int { return f.Count("POST", "/auth") }

// notices collects the retry notices of a client.
type notices struct {
	mu   sync.Mutex
	list []retry.Notice
}

func (n *notices) add(x retry.Notice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, x)
}

func (n *notices) all() []retry.Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]retry.Notice(nil), n.list...)
}

// newClient builds a client on the stubs; retryBudget < 0 leaves the retry
// off.
func newClient(t *testing.T, f http.RoundTripper, retryBudget time.Duration, n *notices, debug io.Writer) *client.Client {
	t.Helper()
	o := client.Options{
		APIURL:    "http://sf.test:13000",
		Namespace: "system",
		Key:       testKey,
		UserAgent: "shakectl/test",
		Timeout:   30 * time.Second,
		Transport: f,
		Debug:     debug,
	}
	if retryBudget >= 0 {
		o.Retry = &client.RetryOptions{Budget: retryBudget}
		if n != nil {
			o.Retry.Notify = n.add
		}
	}
	c, err := client.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refusal507 is a scheduling 507 as shakenfist/shakenfist
// docs/operator_guide/capacity_refusals.md (0c24a714) describes it.
func refusal507(stage string, transient bool, retryAfter string) answer {
	a := answer{status: 507, body: fmt.Sprintf(`{"error": "no candidates at stage %s", "status": 507, "stage": %q, "transient": %t}`, stage, stage, transient)}
	if retryAfter != "" {
		a.header = map[string]string{"Retry-After": retryAfter}
	}
	return a
}

// times is a answered n times.
func times(a answer, n int) []answer {
	out := make([]answer, n)
	for k := range out {
		out[k] = a
	}
	return out
}

func ok200(body string) answer { return answer{status: 200, body: body} }

const instanceJSON = `{"uuid": "8c1d", "name": "web1", "namespace": "system", "cpus": 2, "memory": 2048, "state": "initial", "state_updated": 1700000000.5}`
