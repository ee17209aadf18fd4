package client_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/retry"
)

const (
	testKey   = "sekrit-key-4f1d9c"
	testToken = "tok-SECRET-"
)

// answer is what the fake API says to one request.
type answer struct {
	status int
	header map[string]string
	body   string
	err    error         // a transport error instead of an answer
	delay  time.Duration // simulated round trip (virtual time under synctest)
}

// sent is one request the fake API received.
type sent struct {
	method, path string
	header       http.Header
	body         []byte
	at           time.Time
}

// fakeAPI is an in-memory Shakenfist API: no sockets, so under
// testing/synctest every wait of the client runs on the virtual clock. It
// answers POST /auth itself (a fresh token per login) and every other
// request from the script, in order; the last answer repeats.
type fakeAPI struct {
	t *testing.T

	mu       sync.Mutex
	script   []answer
	requests []sent
	logins   int
	token    string
	// refuseLogin makes logins after the first n fail with 401.
	refuseLoginAfter int
	// expireAfter invalidates the token after that many API requests
	// (0 = never): the next request gets 401.
	expireAt map[int]bool
}

func newFake(t *testing.T, script ...answer) *fakeAPI {
	return &fakeAPI{t: t, script: script, refuseLoginAfter: 1 << 30, expireAt: map[int]bool{}}
}

func (f *fakeAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	f.mu.Lock()
	if req.URL.Path == "/auth" {
		f.logins++
		n := f.logins
		refuse := n > f.refuseLoginAfter
		if !refuse {
			f.token = fmt.Sprintf("%s%d", testToken, n)
		}
		f.mu.Unlock()
		var creds map[string]string
		_ = json.Unmarshal(body, &creds)
		if refuse || creds["key"] != testKey {
			return respond(req, answer{status: 401, body: `{"error": "unauthorized", "status": 401}`}), nil
		}
		return respond(req, answer{status: 200, body: fmt.Sprintf(`{"access_token": %q}`, testToken+fmt.Sprint(n))}), nil
	}
	n := len(f.requests)
	f.requests = append(f.requests, sent{method: req.Method, path: req.URL.Path, header: req.Header.Clone(), body: body, at: time.Now()})
	if f.expireAt[n] {
		delete(f.expireAt, n)
		f.token = ""
	}
	valid := f.token != "" && req.Header.Get("Authorization") == "Bearer "+f.token
	var a answer
	if valid {
		a = f.script[0]
		if len(f.script) > 1 {
			f.script = f.script[1:]
		}
	}
	f.mu.Unlock()
	if !valid {
		return respond(req, answer{status: 401, body: `{"error": "token expired", "status": 401}`}), nil
	}
	if a.delay > 0 {
		// Simulated latency of the round trip, on the virtual clock.
		select {
		case <-time.After(a.delay):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	if a.err != nil {
		return nil, a.err
	}
	return respond(req, a), nil
}

func respond(req *http.Request, a answer) *http.Response {
	h := http.Header{}
	for k, v := range a.header {
		h.Set(k, v)
	}
	if a.header["Content-Type"] == "" {
		h.Set("Content-Type", "application/json")
	}
	return &http.Response{
		StatusCode: a.status, Status: fmt.Sprintf("%d %s", a.status, http.StatusText(a.status)),
		Header: h, Body: io.NopCloser(strings.NewReader(a.body)), Request: req,
		ContentLength: int64(len(a.body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
}

// apiRequests returns the non-auth requests received so far.
func (f *fakeAPI) apiRequests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.requests...)
}

func (f *fakeAPI) loginCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logins
}

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

// newClient builds a client on the fake; retryBudget < 0 leaves the retry
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

func ok200(body string) answer { return answer{status: 200, body: body} }

const instanceJSON = `{"uuid": "8c1d", "name": "web1", "namespace": "system", "cpus": 2, "memory": 2048, "state": "initial", "state_updated": 1700000000.5}`
